//! A reading position as a server holds it ([`ServerPosition`]), and where it was read from
//! ([`PositionSource`]): what [`crate::locator`] reads a progression document into, and what
//! [`crate::position_sync`] compares with this device's position.

use serde::Serialize;

/// Where a server position comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PositionSource {
    /// The book's OPDS progression document.
    Progression,
    /// The page stream's `pse:lastRead` in the catalog.
    PageStream,
    /// Komga's read-progress API.
    ReadProgress,
    /// A KOReader sync server (another device's position for the stored file).
    Kosync,
}

/// A reading position the server holds.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ServerPosition {
    /// 0-based page index.
    pub page: i64,
    /// How far through the book (0.0–1.0), when the server says.
    pub progression: Option<f64>,
    /// The exact place in an EPUB (a CFI), when the server's locator carries one.
    pub cfi: Option<String>,
    /// When the server's position was set (unix milliseconds).
    pub modified_ms: i64,
    pub source: PositionSource,
}
