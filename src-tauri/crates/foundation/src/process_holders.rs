//! Who holds something shared between processes — the executor lease, a server's request
//! slot: a holder id naming this process and machine, and whether the process a holder id
//! names has died, so another process can take over at once instead of waiting for expiry.

/// A holder id for this process, readable in `status` output and unique per acquisition:
/// `program[pid N@host]#tag`. The pid and host let another process on the same machine see at
/// once that a holder died (a crash, `kill -9`) instead of waiting for its lease to expire.
pub fn new_holder_id(program: &str) -> String {
    let tag: u32 = rand::random();
    format!(
        "{program}[pid {}@{}]#{tag:08x}",
        std::process::id(),
        this_host()
    )
}

/// This machine's host name as holders carry it (empty when it cannot be read).
pub fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .unwrap_or_default()
}

/// Whether `holder` names a process of this machine that no longer runs. Unknown formats,
/// other hosts and systems without `/proc` count as alive: only expiry frees their lease.
pub fn holder_is_dead(holder: &str) -> bool {
    let Some(inner) = holder
        .split_once("[pid ")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(i, _)| i)
    else {
        return false;
    };
    let Some((pid, host)) = inner.split_once('@') else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    if host.is_empty() || host != this_host() || pid == std::process::id() {
        return false;
    }
    let proc_root = std::path::Path::new("/proc");
    if !proc_root.join("self").exists() {
        return false;
    }
    match std::fs::read_to_string(proc_root.join(pid.to_string()).join("stat")) {
        // The state follows the command name in parentheses; `Z` is a zombie: dead.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => true,
    }
}
