//! The HTTP client the windows' requests share: catalog pages and covers. (The executor has its
//! own.) Shorter time limits than the downloads', so an unreachable server turns into the
//! offline copy quickly.

use std::sync::OnceLock;
use std::time::Duration;

use carrel_core::http_fetch::{FetchError, HttpClient, HttpConfig};

const CONFIG: HttpConfig = HttpConfig {
    connect_timeout: Duration::from_secs(5),
    read_timeout: Duration::from_secs(20),
};

/// The shared client, made on first use.
pub fn client() -> Result<&'static HttpClient, FetchError> {
    static CLIENT: OnceLock<HttpClient> = OnceLock::new();
    if let Some(c) = CLIENT.get() {
        return Ok(c);
    }
    let made = HttpClient::new(CONFIG)?;
    Ok(CLIENT.get_or_init(|| made))
}
