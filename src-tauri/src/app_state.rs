//! What the shell holds for its whole life: the core opened on this installation's data dir,
//! or — when that failed — the reason, kept so the window can show it in a dialog instead of
//! the app dying or recreating anything over the reader's data.

use std::sync::Arc;

use carrel_core::{
    foundation::clock,
    foundation::data_dir::{self, DataDir},
    foundation::store::Store,
    library::credentials::Credentials,
    ErrorKind,
};

use crate::commands::CommandError;

/// The core of one running app process.
pub struct Core {
    pub store: Store,
    pub credentials: Arc<Credentials>,
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
        let core = carrel_core::open_library(&dir, clock::system())
            .map(|store| Core {
                credentials: Arc::new(Credentials::open(&dir, identifier)),
                store,
            })
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
