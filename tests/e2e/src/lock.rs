//! One window test at a time on the display, whatever `--test-threads` says.
//!
//! WebKit is heavy and the tests share one X display, so every launch — and every
//! [`crate::TestCase`] — holds the [`DisplayLock`]. The lock is re-entrant on one thread (a
//! test holding it can launch the app, close it and launch it again) and is never poisoned: a
//! failing test releases it while unwinding, and the next test runs normally.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{self, ThreadId};

struct Owner {
    thread: Option<ThreadId>,
    depth: usize,
}

static OWNER: Mutex<Owner> = Mutex::new(Owner {
    thread: None,
    depth: 0,
});
static RELEASED: Condvar = Condvar::new();

fn owner() -> MutexGuard<'static, Owner> {
    OWNER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Held while a test uses the display.
#[must_use = "the display is released when the lock is dropped"]
pub struct DisplayLock {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl DisplayLock {
    /// Waits until no other thread holds the display, then takes it.
    pub fn acquire() -> DisplayLock {
        let me = thread::current().id();
        let mut o = owner();
        while o.thread.is_some_and(|t| t != me) {
            o = RELEASED
                .wait(o)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        o.thread = Some(me);
        o.depth += 1;
        DisplayLock {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for DisplayLock {
    fn drop(&mut self) {
        let mut o = owner();
        o.depth -= 1;
        if o.depth == 0 {
            o.thread = None;
            RELEASED.notify_all();
        }
    }
}
