//! Fetching: running a task's request — a page (found in place, asked for ahead, or fetched), a
//! cover, a part of a file — with the server's access and the request slot kept between pages.
//! Whole files are [`super::file_download`]'s.

use super::*;

/// How long the executor reuses a server's address and credentials before reading them again.
/// What running a task got: the bytes it stored, its book, and the page (or cover) it found in
/// place or fetched, to store (see [`UnsyncedPage`]), when it got one.
pub(super) struct Ran {
    pub(super) bytes: u64,
    pub(super) book: Book,
    pub(super) page: Option<PageToStore>,
}

pub(super) const ACCESS_FRESH_FOR: Duration = Duration::from_secs(10);

pub(super) fn parse_url(raw: &str) -> Result<Url, TaskError> {
    Url::parse(raw).map_err(|e| {
        TaskError::Fetch(FetchError::Gone(format!(
            "the catalog gave a bad address: {e}"
        )))
    })
}

/// The file extension for image bytes, from the bytes themselves (servers declare wrong types).
pub(super) fn image_extension(bytes: &[u8]) -> &'static str {
    match carrel_foundation::image_type::sniff_image_type(bytes) {
        Some("image/png") => "png",
        Some("image/jpeg") => "jpg",
        Some("image/gif") => "gif",
        Some("image/webp") => "webp",
        Some("image/avif") => "avif",
        Some("image/bmp") => "bmp",
        _ => "img",
    }
}

/// Whether two addresses name the same resource, compared as parsed URLs (a default port, a
/// host's case or an escape spelled otherwise is the same address).
pub(super) fn same_address(a: &str, b: &str) -> bool {
    match (Url::parse(a), Url::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether `book`'s cover is fetched from `url`, a page's address (a server whose cover of a
/// comic is its first page): that address is fetched once, for the page or the cover, whichever
/// comes first, and its file put in the other's place too (see [`share_stored`]).
pub(super) fn cover_is_page(book: &Book, url: &str) -> bool {
    book.cover_url
        .as_deref()
        .is_some_and(|cover| same_address(cover, url))
}

/// Puts the stored file `from` in `to`'s place too, without asking the server for it again: a
/// hard link, or a copy (written whole or not at all) where no link can be made.
pub(super) fn share_stored(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // A file left there (short, or of another run) gives way.
    match std::fs::remove_file(to) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    part_files::write_atomically_unsynced(to, &std::fs::read(from)?)
}

/// Whether the executor may fetch `url`: an `http` or `https` address.
pub(super) fn is_network_address(url: &str) -> bool {
    let scheme = url.split_once(':').map_or("", |(s, _)| s);
    scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
}

/// The extension of a stored image, for the name of its file in another's place.
fn stored_extension(path: &std::path::Path) -> &str {
    path.extension().and_then(|e| e.to_str()).unwrap_or("img")
}

impl Run<'_> {
    /// The server's address and credentials, reread every few seconds so an edited server or
    /// password is used promptly.
    pub(super) async fn server_access(
        &mut self,
        server_id: i64,
    ) -> Result<ServerAccess, TaskError> {
        if let Some((at, a)) = self.access.get(&server_id) {
            if at.elapsed() < ACCESS_FRESH_FOR {
                return Ok(a.clone());
            }
        }
        // Reading the credentials may wait on the keyring: not with the server's slot kept.
        self.let_slot_go().await;
        let creds = self.ex.credentials.clone();
        // On a blocking thread even from the run's own: the keyring may wait (a prompt, a
        // D-Bus timeout), and the run must still see a stop meanwhile.
        let access = self
            .ex
            .store
            .call(
                move |s| -> Result<ServerAccess, carrel_library::error::Error> {
                    let server = carrel_library::servers::get(s, server_id)?;
                    ServerAccess::load(&server, &creds)
                },
            )
            .await
            .map_err(|e| match e {
                carrel_library::error::Error::Server(
                    carrel_library::servers::ServerError::NotFound(_),
                ) => TaskError::Fetch(FetchError::Gone("the server was removed".into())),
                // A locked keyring or an unreadable secrets file: a local problem, retried.
                other => TaskError::Fetch(FetchError::Transient(format!(
                    "cannot prepare the request: {other}"
                ))),
            })?;
        self.access
            .insert(server_id, (Instant::now(), access.clone()));
        Ok(access)
    }

    /// Runs one task; returns the bytes stored and the follow-up tasks to push.
    pub(super) async fn execute(
        &mut self,
        task: &Task,
        book: Result<Book, books::BookError>,
    ) -> Result<Ran, TaskError> {
        let book = book.map_err(|e| match e {
            books::BookError::NotFound(_) => TaskError::Fetch(FetchError::Gone(e.to_string())),
            other => TaskError::Fetch(FetchError::Transient(other.to_string())),
        })?;
        // Only network addresses are fetched: a book imported from the device has a `file:`
        // address, and a catalog may write anything.
        if task.kind != TaskKind::Book && !is_network_address(&task.url) {
            return Err(TaskError::Fetch(FetchError::Gone(
                "not a network address: there is nothing to download".into(),
            )));
        }
        let (bytes, page) = match task.kind {
            TaskKind::Book => (0, None),
            TaskKind::Page => self.fetch_page(task, &book).await?,
            TaskKind::Resource => self.fetch_cover(task, &book).await?,
            TaskKind::File => (self.fetch_file(task, &book).await?, None),
        };
        Ok(Ran { bytes, book, page })
    }

    /// Gives back the request slot kept from the last request, if any.
    /// A request sent ahead holds the slot: it is let finish first (see [`page_ahead`]).
    pub(super) async fn let_slot_go(&mut self) {
        self.let_ahead_finish().await;
        if let Some(slot) = self.kept_slot.take() {
            let server = slot.server_id();
            if let Err(e) = slot.release().await {
                tracing::warn!(cause = %e, server, "could not free a request slot; it expires by itself");
            }
        }
    }

    /// The stored file of a page, if any. Only this run writes pages while it holds the lease,
    /// so the book's folder is listed once (when the run comes to the book) rather than looked
    /// at under each name a page may have for every page (a lookup per name, most of them
    /// for names that do not exist); a page the list names is checked to be there still (a
    /// book removed meanwhile).
    pub(super) fn stored_page(&mut self, book_id: i64, page: i64) -> Option<std::path::PathBuf> {
        if self
            .pages_on_disk
            .as_ref()
            .is_none_or(|(b, _)| *b != book_id)
        {
            match self.ex.files.stored_pages(book_id) {
                Ok(pages) => self.pages_on_disk = Some((book_id, pages)),
                Err(e) => {
                    tracing::warn!(book = book_id, cause = %e, "could not list a book's pages; looking for each");
                    self.pages_on_disk = None;
                    return self.ex.files.find_page(book_id, page);
                }
            }
        }
        let (_, pages) = self.pages_on_disk.as_ref()?;
        pages.get(&page).filter(|p| p.is_file()).cloned()
    }

    /// A page or cover found in place, stored before a crash and not yet marked: taken (to be
    /// stored and synced with the next batch) without downloading it twice, and its size
    /// returned — unless a power cut left it short of the size its marking recorded, or empty
    /// when no size was recorded yet; then it is removed, to be fetched again.
    pub(super) fn take_found(
        &mut self,
        task: &Task,
        existing: std::path::PathBuf,
    ) -> Option<(u64, PageToStore)> {
        let len = std::fs::metadata(&existing).map(|m| m.len()).unwrap_or(0);
        let short = match task.bytes {
            Some(recorded) => recorded as u64 != len,
            None => len == 0,
        };
        if short {
            tracing::info!(
                task = task.id,
                "a stored file is shorter than recorded; fetching it again"
            );
            let _ = std::fs::remove_file(&existing);
            return None;
        }
        Some((len, PageToStore::Found(existing)))
    }

    /// The page of `task` taken from the book's stored cover, when the cover was fetched from
    /// the page's address (see [`cover_is_page`]).
    fn page_from_cover(&mut self, task: &Task, book: &Book) -> Option<(u64, Option<PageToStore>)> {
        if !cover_is_page(book, &task.url) {
            return None;
        }
        let cover = self.ex.files.find_cover(book.id)?;
        let to = self
            .ex
            .files
            .page_path(book.id, task.position, stored_extension(&cover));
        self.take_shared(task, &cover, to)
    }

    /// The cover of `task` taken from the book's stored page 0, when the cover's address is
    /// that page's (see [`cover_is_page`]).
    fn cover_from_page(&mut self, task: &Task, book: &Book) -> Option<(u64, Option<PageToStore>)> {
        let first = book_downloads::page_url(book, 0)?;
        if !same_address(&task.url, &first) {
            return None;
        }
        let page = self.ex.files.find_page(book.id, 0)?;
        let ext = stored_extension(&page);
        if ext == "bytes" {
            return None; // a part of the book's file, not an image
        }
        let to = self.ex.files.cover_path(book.id, ext);
        self.take_shared(task, &page, to)
    }

    /// `from` put in `to`'s place (see [`share_stored`]) and taken as found; `None` when it
    /// could not be, to be fetched instead.
    fn take_shared(
        &mut self,
        task: &Task,
        from: &std::path::Path,
        to: std::path::PathBuf,
    ) -> Option<(u64, Option<PageToStore>)> {
        if let Err(e) = share_stored(from, &to) {
            tracing::warn!(task = task.id, cause = %e, "could not reuse a stored file; fetching it");
            return None;
        }
        let (len, found) = self.take_found(task, to)?;
        Some((len, Some(found)))
    }

    pub(super) async fn fetch_page(
        &mut self,
        task: &Task,
        book: &Book,
    ) -> Result<(u64, Option<PageToStore>), TaskError> {
        if let Some(existing) = self.stored_page(book.id, task.position) {
            if let Some((len, found)) = self.take_found(task, existing) {
                self.drop_ahead().await;
                return Ok((len, Some(found)));
            }
        }
        // A cover stored from this page's address: the page is that file.
        if let Some(found) = self.page_from_cover(task, book) {
            self.drop_ahead().await;
            return Ok(found);
        }
        // Asked for already, while the last page's step ran (see `page_ahead`).
        if let Some(ahead) = self.ahead.take_if(|a| a.serves(task)) {
            let answer = ahead.answer();
            tokio::pin!(answer);
            let (fetched, slot) = if self.unrecorded.is_empty() {
                answer.await
            } else {
                // A slow answer: the pages put in place before it are recorded meanwhile, so
                // that a window waiting for one of them sees it (see `claim_ahead`).
                tokio::select! {
                    a = &mut answer => a,
                    () = tokio::time::sleep(claim_ahead::QUIET_FOR) => {
                        self.record_before_waiting().await;
                        answer.await
                    }
                }
            };
            if slot.is_some() {
                self.kept_slot = slot;
            }
            let fetched = fetched?;
            let path =
                self.ex
                    .files
                    .page_path(book.id, task.position, image_extension(&fetched.bytes));
            let len = fetched.bytes.len() as u64;
            return Ok((len, Some(PageToStore::Fetched(path, fetched.bytes))));
        }
        // A request of its own, or one ahead let finish first, may wait: the pages put in
        // place before it are recorded first (see `claim_ahead`).
        self.record_before_waiting().await;
        self.drop_ahead().await;
        let url = parse_url(&task.url)?;
        let access = self.server_access(task.server_id).await?;
        if let Some(range) = book_downloads::requested_range(&url) {
            // A part of the book's file, read before the file is stored (a page of a zip);
            // once the file is stored, nothing is left to fetch.
            if self.ex.files.find_book_file(book.id).is_some() {
                return Ok((0, None));
            }
            // A part takes a slot of its own.
            self.let_slot_go().await;
            let (fetched, _) = self
                .ex
                .http
                .get_part(
                    &self.ex.store,
                    &access,
                    &url,
                    &range,
                    self.ex.config.max_page_bytes,
                )
                .await?;
            let path = self.ex.files.page_path(book.id, task.position, "bytes");
            let len = fetched.bytes.len() as u64;
            return Ok((len, Some(PageToStore::Fetched(path, fetched.bytes))));
        }
        let fetched = self
            .ex
            .http
            .get_bytes_reusing_slot(
                &self.ex.store,
                &access,
                &url,
                self.ex.config.max_page_bytes,
                &mut self.kept_slot,
            )
            .await?;
        let ext = image_extension(&fetched.bytes);
        let path = self.ex.files.page_path(book.id, task.position, ext);
        let len = fetched.bytes.len() as u64;
        Ok((len, Some(PageToStore::Fetched(path, fetched.bytes))))
    }

    /// A cover, stored and synced with the pages' batch as a page is (see [`UnsyncedPage`]).
    pub(super) async fn fetch_cover(
        &mut self,
        task: &Task,
        book: &Book,
    ) -> Result<(u64, Option<PageToStore>), TaskError> {
        if let Some(existing) = self.ex.files.find_cover(book.id) {
            if let Some((len, found)) = self.take_found(task, existing) {
                return Ok((len, Some(found)));
            }
        }
        // A page 0 stored from the cover's address: the cover is that file.
        if let Some(found) = self.cover_from_page(task, book) {
            return Ok(found);
        }
        let url = parse_url(&task.url)?;
        let access = self.server_access(task.server_id).await?;
        let fetched = self
            .ex
            .http
            .get_bytes_reusing_slot(&self.ex.store, &access, &url, 32 << 20, &mut self.kept_slot)
            .await?;
        let path = self
            .ex
            .files
            .cover_path(book.id, image_extension(&fetched.bytes));
        let len = fetched.bytes.len() as u64;
        Ok((len, Some(PageToStore::Fetched(path, fetched.bytes))))
    }
}

#[cfg(test)]
mod tests {
    use super::is_network_address;

    #[test]
    fn only_http_and_https_addresses_are_fetched() {
        assert!(is_network_address("http://127.0.0.1:9/b.cbz"));
        assert!(is_network_address("HTTPS://example.org/b.epub"));
        assert!(!is_network_address("file:///home/ann/b.cbz"));
        assert!(!is_network_address("FILE:/etc/passwd"));
        assert!(!is_network_address("device:"));
        assert!(!is_network_address(""));
        assert!(!is_network_address("/home/ann/b.cbz"));
    }
}
