//! Which pages a page-streamed book has: pages `0..count` (0-based), `count` its page count.
//! The one rule the reader's window, opening a book and pushing a page all check.

use carrel_library::books::Book;

/// A page outside its book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("page {page} does not exist: the book has {count} pages")]
pub struct OutOfRange {
    pub page: i64,
    pub count: i64,
}

/// Whether `page` (0-based) is a page of a book of `count` pages.
pub fn check(page: i64, count: i64) -> Result<(), OutOfRange> {
    if page < 0 || page >= count {
        return Err(OutOfRange { page, count });
    }
    Ok(())
}

/// The pages of `book` as the rule counts them: its page count when it streams pages (none
/// known is none), else none at all.
pub fn count_of(book: &Book) -> i64 {
    if book.streams_pages() {
        book.page_count.unwrap_or(0)
    } else {
        0
    }
}

/// [`check`] of `page` against `book`; its page count when the page is one of its pages.
pub fn check_book(book: &Book, page: i64) -> Result<i64, OutOfRange> {
    let count = count_of(book);
    check(page, count)?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_zero_to_count() {
        assert_eq!(check(0, 3), Ok(()));
        assert_eq!(check(2, 3), Ok(()));
        assert_eq!(check(3, 3), Err(OutOfRange { page: 3, count: 3 }));
        assert_eq!(check(-1, 3), Err(OutOfRange { page: -1, count: 3 }));
        assert_eq!(check(0, 0), Err(OutOfRange { page: 0, count: 0 }));
    }
}
