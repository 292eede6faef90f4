//! "Start Carrel when you log in": an XDG autostart entry (`autostart/carrel.desktop` in the
//! user's config folder, `$XDG_CONFIG_HOME` or `~/.config`), which every freedesktop session
//! (GNOME, KDE, Xfce, …) starts at login. The entry is the truth: a reader who turns it off in
//! the desktop's own startup settings sees it off here too. Off by default.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The entry's file name.
const ENTRY: &str = "carrel.desktop";

/// The user's config folder per the XDG base directory spec.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
}

fn entry_path(config: &Path) -> PathBuf {
    config.join("autostart").join(ENTRY)
}

/// Whether Carrel starts at login (an entry exists and is not disabled).
pub fn enabled(config: &Path) -> bool {
    match std::fs::read_to_string(entry_path(config)) {
        Ok(text) => !text.lines().any(|l| {
            let l = l.trim();
            l == "Hidden=true" || l == "X-GNOME-Autostart-enabled=false"
        }),
        Err(_) => false,
    }
}

/// Writes (or removes) the entry; `exe` is the program to start.
pub fn set(config: &Path, exe: &Path, on: bool) -> io::Result<()> {
    let path = entry_path(config);
    if !on {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    let dir = path.parent().expect("the entry has a folder");
    std::fs::create_dir_all(dir)?;
    let text = format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=Carrel\n\
         Comment=Your comics and ebooks, from your own server\n\
         Exec={}\n\
         Icon=carrel\n\
         Terminal=false\n\
         X-GNOME-Autostart-enabled=true\n",
        exec_value(exe)
    );
    // Written whole or not at all.
    let tmp = dir.join(format!(".{ENTRY}.tmp"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, &path)
}

/// The `Exec` value for a program path, quoted as the Desktop Entry spec asks: in double
/// quotes, with `"`, `` ` ``, `$` and `\` escaped by a backslash (and that backslash escaped
/// again, as every string value's backslashes are), `%` doubled.
fn exec_value(exe: &Path) -> String {
    let mut quoted = String::from("\"");
    for c in exe.to_string_lossy().chars() {
        match c {
            '"' | '`' | '$' => {
                quoted.push_str("\\\\");
                quoted.push(c);
            }
            '\\' => quoted.push_str("\\\\\\\\"),
            '%' => quoted.push_str("%%"),
            _ => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turned_on_an_entry_starts_this_program_and_turned_off_it_is_gone() {
        let config = tempfile::tempdir().unwrap();
        assert!(!enabled(config.path()), "off by default");
        set(config.path(), Path::new("/opt/Carrel App/carrel"), true).unwrap();
        let text = std::fs::read_to_string(config.path().join("autostart/carrel.desktop")).unwrap();
        assert!(text.starts_with("[Desktop Entry]\n"), "{text}");
        assert!(
            text.contains("\nExec=\"/opt/Carrel App/carrel\"\n"),
            "{text}"
        );
        assert!(text.contains("\nType=Application\n"), "{text}");
        assert!(enabled(config.path()));
        // Turned off in the desktop's own settings: off here too.
        std::fs::write(
            config.path().join("autostart/carrel.desktop"),
            text.replace(
                "X-GNOME-Autostart-enabled=true",
                "X-GNOME-Autostart-enabled=false",
            ),
        )
        .unwrap();
        assert!(!enabled(config.path()));
        set(config.path(), Path::new("/opt/carrel"), false).unwrap();
        assert!(!config.path().join("autostart/carrel.desktop").exists());
        // Turning off what is off is fine.
        set(config.path(), Path::new("/opt/carrel"), false).unwrap();
    }

    #[test]
    fn a_path_with_reserved_characters_is_quoted_as_the_spec_asks() {
        assert_eq!(exec_value(Path::new("/a b/c")), "\"/a b/c\"");
        assert_eq!(exec_value(Path::new("/x$y/100%")), "\"/x\\\\$y/100%%\"");
        assert_eq!(exec_value(Path::new("/q\"`")), "\"/q\\\\\"\\\\`\"");
    }
}
