//! The HTTP client the windows' requests share: catalog pages and covers. (The executor has its
//! own.) Shorter time limits than the downloads', so an unreachable server turns into the
//! offline copy quickly.

use std::sync::Arc;
use std::time::Duration;

use carrel_core::http::http_fetch::{FetchError, HttpClient, HttpConfig};
use carrel_core::library::credentials::Credentials;

const CONFIG: HttpConfig = HttpConfig {
    connect_timeout: Duration::from_secs(5),
    read_timeout: Duration::from_secs(20),
};

/// The windows' client; the sessions servers give are kept in the installation's secret store
/// (`credentials`), so the app's next start signs in without the password. Made once per
/// process, on first use, by [`crate::app_state::Core::http`].
pub fn make(credentials: &Arc<Credentials>) -> Result<HttpClient, FetchError> {
    Ok(HttpClient::new(CONFIG)?.keeping_sessions_in(credentials.clone()))
}
