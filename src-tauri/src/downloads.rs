//! The app's download executor: started with the app, it waits for the executor lease (another
//! window's process or a `carrel-cli sync` may hold it) and then works the stack until the app
//! quits, when it gives the lease back so another process can take over at once.
//!
//! Progress goes to the [`ProgressSink`] the app assembles (the log, the windows, desktop
//! notifications); only the lease holder reports, so two processes never notify twice.
//!
//! Beside it runs a small periodic task that sends saved reading positions to the servers
//! ([`position_sync::flush`]): every 30 s while something waits, and 5 s after the reader
//! stops turning pages.

use std::sync::Arc;
use std::time::Duration;

use carrel_core::{
    engine::executor::{Executor, ExecutorConfig, Finish, RunMode},
    engine::network_watch::NetworkWatch,
    engine::progress::{DownloadEvent, ProgressSink},
    foundation::store::Store,
    http::http_fetch::HttpClient,
    library::credentials::Credentials,
    reading::position_sync,
};
use tokio::sync::{watch, Notify};

use crate::app_state::Core;

/// How often waiting reading positions are sent again.
const POSITION_FLUSH_EVERY: Duration = Duration::from_secs(30);
/// How long after the last saved position the positions are sent.
const POSITION_DEBOUNCE: Duration = Duration::from_secs(5);

/// Sends waiting reading positions until `stop` turns true.
async fn send_positions(
    store: Store,
    credentials: Arc<Credentials>,
    http: HttpClient,
    saved: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(POSITION_FLUSH_EVERY) => {}
            _ = saved.notified() => loop {
                // Debounced: the reader may still be turning pages.
                tokio::select! {
                    _ = stop.changed() => return,
                    _ = tokio::time::sleep(POSITION_DEBOUNCE) => break,
                    _ = saved.notified() => {}
                }
            },
        }
        if *stop.borrow() {
            return;
        }
        match position_sync::pending(&store) {
            Ok(waiting) if waiting.is_empty() => continue,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(cause = %e, "cannot read the reading positions to send");
                continue;
            }
        }
        match position_sync::flush(&store, &http, &credentials).await {
            Ok(report) => tracing::debug!(?report, "reading positions sent"),
            Err(e) => tracing::warn!(cause = %e, "cannot send reading positions"),
        }
    }
}

/// Logs the executor's events.
pub struct LogSink;

impl ProgressSink for LogSink {
    fn report(&self, event: DownloadEvent) {
        match event {
            DownloadEvent::BookStored(p) => tracing::info!(
                book = p.book_id,
                parts = p.total_parts,
                "book ready to read offline"
            ),
            DownloadEvent::TaskFailed {
                book_id,
                reason,
                will_retry,
                ..
            } => {
                tracing::warn!(book = book_id, %reason, will_retry, "download failed")
            }
            DownloadEvent::State(state) => tracing::debug!(?state, "executor state"),
            _ => {}
        }
    }
}

/// The running executor; dropping it does not stop it, [`DownloadService::shut_down`] does.
pub struct DownloadService {
    stop: watch::Sender<bool>,
    task: tauri::async_runtime::JoinHandle<()>,
    positions: tauri::async_runtime::JoinHandle<()>,
    /// NetworkManager followed while downloads run: metered links and connectivity (see
    /// `carrel_core::engine::network`).
    network: NetworkWatch,
}

impl DownloadService {
    pub fn start(core: &Core, sink: Arc<dyn ProgressSink>) -> Option<DownloadService> {
        let http = match core.http() {
            Ok(http) => http,
            Err(e) => {
                tracing::error!(cause = %e, "downloads are unavailable");
                return None;
            }
        };
        let executor = match Executor::new(
            core.store.clone(),
            core.credentials.clone(),
            sink,
            ExecutorConfig::default(),
            core.holder_id.clone(),
        ) {
            Ok(e) => e,
            Err(e) => {
                tracing::error!(cause = %e, "downloads are unavailable");
                return None;
            }
        };
        let network = NetworkWatch::start(core.store.clone());
        let (stop, rx) = watch::channel(false);
        let positions = tauri::async_runtime::spawn(send_positions(
            core.store.clone(),
            core.credentials.clone(),
            http,
            core.position_saved.clone(),
            rx.clone(),
        ));
        let task = tauri::async_runtime::spawn(async move {
            loop {
                match executor.run_waiting(RunMode::Forever, rx.clone()).await {
                    Ok(Finish::Shutdown) => return,
                    Ok(Finish::LeaseLost) => {
                        tracing::warn!("another Carrel took over the downloads; standing by")
                    }
                    Ok(other) => tracing::debug!(?other, "executor returned"),
                    Err(e) => {
                        tracing::error!(cause = %e, "the download executor stopped; restarting it shortly");
                        tokio::time::sleep(Duration::from_secs(5)).await;
                    }
                }
                if *rx.borrow() {
                    return;
                }
            }
        });
        Some(DownloadService {
            stop,
            task,
            positions,
            network,
        })
    }

    /// Stops the executor and waits (briefly) until it has put its task back and released the
    /// lease.
    pub fn shut_down(self) {
        let _ = self.stop.send(true);
        let _ = tauri::async_runtime::block_on(async {
            tokio::time::timeout(Duration::from_secs(3), self.task).await
        });
        self.positions.abort();
        self.network.stop();
    }
}
