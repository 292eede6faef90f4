//! How WebKitGTK draws the windows, chosen once before GTK starts. On a machine without a GPU
//! (no DRM render node, or software GL asked for), compositing is turned off
//! (`WEBKIT_DISABLE_COMPOSITING_MODE`): the page is painted straight into the window's backing
//! store on the CPU, instead of into layers that Mesa's software OpenGL (llvmpipe) composites
//! every frame and whose shaders LLVM compiles at the first paint of every new kind of content.
//! Scrolling 10,000 books costs a third of the CPU a frame that way, and the cold start loses
//! the OpenGL start (tests/bench/HISTORY.md, "Compositing off where there is no GPU"). With a
//! GPU nothing changes.
//!
//! WebKit answers a WebDriver screenshot after the page's next painted frame, and without
//! compositing a page where nothing changes paints none: the window tests' harness keeps one
//! pixel changing while it takes one (`carrel_e2e::Client::screenshot_png`).
//!
//! A person who set one of WebKit's own rendering variables (any of [`CHOSEN_BY_PERSON`]) has
//! chosen; they are left alone. This module does not own anything drawn, only the process
//! environment the web processes inherit.

use std::ffi::OsString;
use std::path::Path;

/// The variable that turns WebKitGTK's compositing off: pages painted on the CPU, in one layer.
pub const NO_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// WebKitGTK's variables about how pages are drawn: any of them set is the person's choice.
const CHOSEN_BY_PERSON: &[&str] = &[
    NO_COMPOSITING,
    "WEBKIT_SKIA_ENABLE_CPU_RENDERING",
    "WEBKIT_FORCE_COMPOSITING_MODE",
    "WEBKIT_DISABLE_DMABUF_RENDERER",
    "WEBKIT_FORCE_DMABUF_RENDERER",
];

/// What the machine offers for drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// A DRM render node (`/dev/dri/renderD*`): some GPU can run OpenGL.
    pub render_node: bool,
}

impl Machine {
    /// The machine this process runs on.
    pub fn this() -> Machine {
        Machine {
            render_node: has_render_node(Path::new("/dev/dri")),
        }
    }
}

/// The variable to set before GTK starts, if any: compositing off when OpenGL could only be
/// software, unless the person chose already.
pub fn choice(
    machine: Machine,
    var: impl Fn(&str) -> Option<OsString>,
) -> Option<(&'static str, &'static str)> {
    if CHOSEN_BY_PERSON.iter().any(|name| var(name).is_some()) {
        return None;
    }
    let software_gl =
        var("LIBGL_ALWAYS_SOFTWARE").is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    (!machine.render_node || software_gl).then_some((NO_COMPOSITING, "1"))
}

/// Applies [`choice`] to this process. Call first thing, before GTK or any other thread starts:
/// the web processes WebKit spawns inherit the environment.
pub fn choose() {
    if !cfg!(target_os = "linux") {
        return;
    }
    if let Some((name, value)) = choice(Machine::this(), |name| std::env::var_os(name)) {
        tracing::info!(
            variable = name,
            "no GPU for OpenGL: pages are painted on the CPU, without compositing"
        );
        std::env::set_var(name, value);
    }
}

fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    const NO_GPU: Machine = Machine { render_node: false };
    const GPU: Machine = Machine { render_node: true };

    #[test]
    fn without_a_gpu_compositing_is_turned_off() {
        assert_eq!(choice(NO_GPU, env(&[])), Some((NO_COMPOSITING, "1")));
    }

    #[test]
    fn with_a_gpu_webkit_draws_as_it_would() {
        assert_eq!(choice(GPU, env(&[])), None);
        assert_eq!(choice(GPU, env(&[("LIBGL_ALWAYS_SOFTWARE", "0")])), None);
    }

    #[test]
    fn software_gl_asked_for_counts_as_no_gpu() {
        assert_eq!(
            choice(GPU, env(&[("LIBGL_ALWAYS_SOFTWARE", "1")])),
            Some((NO_COMPOSITING, "1"))
        );
    }

    #[test]
    fn a_choice_made_with_webkits_own_variables_is_kept() {
        for name in CHOSEN_BY_PERSON {
            assert_eq!(choice(NO_GPU, env(&[(name, "1")])), None, "{name}");
        }
        assert_eq!(
            choice(
                NO_GPU,
                env(&[
                    ("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "0"),
                    ("LIBGL_ALWAYS_SOFTWARE", "1")
                ])
            ),
            None
        );
    }

    #[test]
    fn a_render_node_is_found_among_the_dri_devices() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_render_node(&dir.path().join("absent")));
        std::fs::write(dir.path().join("card0"), b"").unwrap();
        assert!(!has_render_node(dir.path()));
        std::fs::write(dir.path().join("renderD128"), b"").unwrap();
        assert!(has_render_node(dir.path()));
    }
}
