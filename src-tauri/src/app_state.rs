//! What the shell holds for its whole life: the core opened on this installation's data dir,
//! or — when that failed — the reason, kept so the window can show it in a dialog instead of
//! the app dying or recreating anything over the reader's data.

use std::sync::{Arc, Mutex};

use carrel_core::{
    catalog::cover_cache::CoverCache,
    foundation::clock,
    foundation::data_dir::{self, DataDir},
    foundation::process_holders,
    foundation::store::Store,
    http::http_fetch::{FetchError, HttpClient},
    library::credentials::Credentials,
    ErrorKind,
};
use tokio::sync::Notify;

use crate::command_error::CommandError;

/// The core of one running app process, and what its windows' requests share.
pub struct Core {
    pub store: Store,
    pub credentials: Arc<Credentials>,
    /// The covers of the data dir, for `carrel-cover://`.
    pub covers: Arc<CoverCache>,
    /// This process's executor holder id, so the windows can tell whether the lease holder is
    /// this process.
    pub holder_id: String,
    /// Rung when the reader saves a position; the position sender waits on it.
    pub position_saved: Arc<Notify>,
    /// The windows' HTTP client (catalog pages, covers, positions), made on first use; held
    /// while it is made, so requests arriving together (a screen of covers at start) make one.
    http: Mutex<Option<HttpClient>>,
}

impl Core {
    fn new(store: Store, credentials: Arc<Credentials>) -> Core {
        Core {
            covers: Arc::new(CoverCache::new(store.data_dir())),
            holder_id: process_holders::new_holder_id("carrel"),
            position_saved: Arc::new(Notify::new()),
            http: Mutex::new(None),
            store,
            credentials,
        }
    }

    /// The windows' HTTP client ([`crate::http_client::make`]); the sessions servers give are
    /// kept in the installation's secret store.
    pub fn http(&self) -> Result<HttpClient, FetchError> {
        let mut http = self.http.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = http.as_ref() {
            return Ok(c.clone());
        }
        let made = crate::http_client::make(&self.credentials)?;
        Ok(http.insert(made).clone())
    }
}

pub struct AppState {
    data_dir: Option<DataDir>,
    core: Result<Core, CommandError>,
}

impl AppState {
    /// Opens the data dir for `identifier` (or `CARREL_DATA_DIR`).
    pub fn open(identifier: &str) -> AppState {
        let Some(root) = data_dir::resolve(identifier) else {
            return AppState {
                data_dir: None,
                core: Err(CommandError::new(
                    ErrorKind::Storage,
                    "Carrel cannot find a home folder to keep its data in; set CARREL_DATA_DIR",
                )),
            };
        };
        let dir = DataDir::new(root);
        let credentials = Arc::new(Credentials::open(&dir, identifier));
        let core = carrel_core::open_library(&dir, clock::system(), &credentials)
            .inspect(|store| {
                // The language chosen in Settings, for what the shell says from now on.
                let chosen = carrel_core::library::settings::get::<
                    carrel_core::library::settings::Language,
                >(store)
                .ok()
                .flatten()
                .and_then(|l| l.0);
                crate::messages::choose(crate::messages::language_for(chosen.as_deref()));
            })
            .map(|store| Core::new(store, credentials))
            .map_err(|e| {
                tracing::error!(cause = %e, "cannot open the data folder");
                CommandError::from(carrel_core::Error::from(e))
            });
        AppState {
            data_dir: Some(dir),
            core,
        }
    }

    pub fn core(&self) -> Result<&Core, CommandError> {
        self.core.as_ref().map_err(Clone::clone)
    }

    pub fn store(&self) -> Option<&Store> {
        self.core.as_ref().ok().map(|c| &c.store)
    }

    pub fn data_dir(&self) -> Option<&DataDir> {
        self.data_dir.as_ref()
    }
}
