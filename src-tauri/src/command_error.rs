//! What a failure is when it reaches the window: its kind, its message and the form field it is
//! about — the one conversion from every core error, shared by the commands, the app's state
//! and the protocols, so the window and the CLI agree on what a failure is.

use carrel_core::{ErrorField, ErrorKind, Failure};
use serde::Serialize;

/// An error as the UI sees it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
    /// The form field the error is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub field: Option<ErrorField>,
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

/// Every core error reaches the window as its kind, its message and the form field it is
/// about: the one conversion, so the window and the CLI agree on what a failure is.
impl<E: Failure> From<E> for CommandError {
    fn from(e: E) -> Self {
        CommandError::of(&e)
    }
}

impl CommandError {
    /// The command error a core error is (see the `From` above), from a borrowed one.
    pub fn of<E: Failure>(e: &E) -> Self {
        CommandError {
            kind: if not_downloaded(e) {
                ErrorKind::NotDownloaded
            } else {
                e.kind()
            },
            message: e.to_string(),
            field: e.field(),
        }
    }
}

/// A page, comic archive or whole file that is not on the device and did not arrive in time:
/// the core calls it a server failure (it is, for the CLI); the window gets its own kind, so it
/// says "not downloaded yet" and asks again without ever reading the message.
fn not_downloaded(e: &dyn std::any::Any) -> bool {
    matches!(
        e.downcast_ref::<carrel_core::reading::page_source::PageError>(),
        Some(carrel_core::reading::page_source::PageError::OfflineNotDownloaded)
    )
}

/// What a command returns.
pub type CommandResult<T> = Result<T, CommandError>;
