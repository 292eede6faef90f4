//! The commands the web UI calls through `invoke`, one core call each. Blocking work (SQLite,
//! the keyring) runs on the blocking pool, never on the UI thread. Errors reach the UI as
//! `{ kind, message, field }` so it can branch on `kind` and put a message beside `field`.

use carrel_core::{
    credentials::{self, Backend, Secret},
    servers::{self, NewServer, Server, ServerError},
    ErrorKind,
};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::app_state::{AppState, Core};

/// An error as the UI sees it.
#[derive(Debug, Clone, Serialize)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
    /// The form field the error is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<&'static str>,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CommandError {
            kind,
            message: message.into(),
            field: None,
        }
    }
}

impl From<carrel_core::Error> for CommandError {
    fn from(e: carrel_core::Error) -> Self {
        let field = match &e {
            carrel_core::Error::Server(ServerError::EmptyName | ServerError::NameTooLong | ServerError::DuplicateName(_)) => Some("name"),
            carrel_core::Error::Server(ServerError::InvalidUrl(_)) => Some("url"),
            _ => None,
        };
        CommandError {
            kind: e.kind(),
            message: e.to_string(),
            field,
        }
    }
}

impl From<ServerError> for CommandError {
    fn from(e: ServerError) -> Self {
        carrel_core::Error::from(e).into()
    }
}

impl From<credentials::CredentialError> for CommandError {
    fn from(e: credentials::CredentialError) -> Self {
        carrel_core::Error::from(e).into()
    }
}

type CommandResult<T> = Result<T, CommandError>;

/// Runs `f` with the core on the blocking pool.
async fn with_core<T: Send + 'static>(
    app: AppHandle,
    f: impl FnOnce(&Core) -> CommandResult<T> + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn_blocking(move || f(app.state::<AppState>().core()?))
        .await
        .map_err(|e| CommandError::new(ErrorKind::Storage, format!("internal error: {e}")))?
}

/// What the UI needs to know before it draws anything.
#[derive(Debug, Serialize)]
pub struct AppStatus {
    pub version: &'static str,
    pub data_dir: Option<String>,
    /// Where passwords are kept; `file` means no keyring answered (shown as a notice).
    pub credentials: Option<Backend>,
    /// Why the library cannot be opened, when it cannot.
    pub error: Option<CommandError>,
}

#[tauri::command]
pub async fn app_status(app: AppHandle) -> AppStatus {
    let state = app.state::<AppState>();
    let core = state.core();
    AppStatus {
        version: env!("CARGO_PKG_VERSION"),
        data_dir: state.data_dir().map(|d| d.root().display().to_string()),
        credentials: core.as_ref().ok().map(|c| c.credentials.backend()),
        error: core.err(),
    }
}

#[tauri::command]
pub async fn list_servers(app: AppHandle) -> CommandResult<Vec<Server>> {
    with_core(app, |core| Ok(servers::list(&core.store)?)).await
}

/// The "Add server" dialog's fields.
#[derive(Debug, Deserialize)]
pub struct AddServerInput {
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
}

#[tauri::command]
pub async fn add_server(app: AppHandle, input: AddServerInput) -> CommandResult<Server> {
    with_core(app, move |core| {
        let new = NewServer {
            name: input.name,
            url: input.url,
            username: input.username,
            min_interval_ms: None,
        };
        let password = input.password.filter(|p| !p.is_empty()).map(Secret::new);
        Ok(servers::add_with_secret(&core.store, &core.credentials, &new, password.as_ref())?)
    })
    .await
}

#[tauri::command]
pub async fn remove_server(app: AppHandle, name: String) -> CommandResult<()> {
    with_core(app, move |core| {
        servers::remove_with_secret(&core.store, &core.credentials, &name)?;
        Ok(())
    })
    .await
}
