//! The window contract: every command the UI may call, with its arguments and its result, and
//! the TypeScript of every type that crosses the IPC, derived from the Rust types themselves
//! (`ts-rs`, which reads their serde attributes).
//!
//! [`write`] puts the contract in `ui/src/lib/contract/` (one file per type, `Commands.ts` for
//! the commands, `index.ts` re-exporting them all) and the commands' table in `docs/IPC.md`:
//! `make contract` runs it. A test regenerates both into a temporary folder and fails when the
//! tree differs, so the UI never reads a contract older than the Rust side.
//!
//! JSON has no 64-bit integers: Tauri hands every integer to the window as a JavaScript number,
//! so the contract says `number` where ts-rs would say `bigint`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use carrel_core::{
    catalog::{
        book_view::BookDetails,
        client::CatalogView,
        device_library::{DeviceLibrary, DeviceLibraryQuery},
        download_batches::BatchView,
        library_folders::{LibraryFolder, RemovedFolder, ScanEvent},
        library_search::ServerAnswer,
        series_read_ahead,
        storage_usage::StorageUsage,
    },
    engine::{book_downloads::StoreRequest, downloads_view::DownloadsView},
    library::{servers::Server, settings::Settings},
    reading::position_sync::ServerPosition,
    reading::{
        annotation_export::ExportFormat,
        annotations::{Annotation, Colour, NewAnnotation},
    },
    reading::{archive_pages::ArchiveComic, epub_positions::EpubPosition},
};
use ts_rs::{TypeVisitor, TS};

use crate::commands::{
    AddServerInput, AppStatus, BookToRemove, CommandError, FoundCatalog, KosyncAccountView,
    UpdateServerInput,
};

/// Where the contract is kept, from the repository's root.
pub const CONTRACT_DIR: &str = "ui/src/lib/contract";
/// The commands' page of the docs, from the repository's root.
pub const COMMANDS_DOC: &str = "docs/IPC.md";

/// One argument of a command: its name in Rust and its TypeScript.
pub struct Arg {
    pub name: &'static str,
    ts: String,
    optional: bool,
    types: Vec<Declared>,
}

/// One command: its name, its arguments, and what it resolves to.
pub struct Command {
    pub name: &'static str,
    pub args: Vec<Arg>,
    result: String,
    types: Vec<Declared>,
}

impl Command {
    /// The permission that lets a window call it.
    pub fn permission(&self) -> String {
        format!("allow-{}", self.name.replace('_', "-"))
    }

    /// Whether the windows are granted it (`capabilities/main.json`).
    pub fn granted(&self) -> bool {
        include_str!("../capabilities/main.json").contains(&format!("\"{}\"", self.permission()))
    }
}

/// A type declared in a file of its own: its TypeScript name and the file's text.
#[derive(Clone)]
struct Declared {
    id: std::any::TypeId,
    rust: &'static str,
    name: String,
    file: PathBuf,
    text: String,
}

/// Every declared type `T` names, itself included, through its fields and generic arguments.
#[derive(Default)]
struct Collect {
    seen: BTreeSet<String>,
    visited: std::collections::HashSet<std::any::TypeId>,
    found: Vec<Declared>,
}

impl TypeVisitor for Collect {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if !self.visited.insert(std::any::TypeId::of::<T>()) {
            return;
        }
        if let Some(file) = T::output_path() {
            let text = T::export_to_string().expect("a declared type exports");
            self.seen.insert(T::ident());
            self.found.push(Declared {
                id: std::any::TypeId::of::<T>(),
                rust: std::any::type_name::<T>(),
                name: T::ident(),
                file,
                text,
            });
        }
        T::visit_dependencies(self);
        T::visit_generics(self);
    }
}

fn declared<T: TS + 'static + ?Sized>() -> Vec<Declared> {
    let mut collect = Collect::default();
    collect.visit::<T>();
    collect.found
}

/// The TypeScript of `T` where it is used.
fn ts_of<T: TS + 'static + ?Sized>() -> String {
    T::name()
}

/// An argument of type `T`; optional when `T` is an `Option`.
fn arg<T: TS + 'static>(name: &'static str) -> Arg {
    Arg {
        name,
        ts: ts_of::<T>(),
        optional: T::IS_OPTION,
        types: declared::<T>(),
    }
}

/// A `Channel` argument: the messages of type `T` the command sends while it runs.
fn channel<T: TS + 'static>(name: &'static str) -> Arg {
    Arg {
        name,
        ts: format!("Channel<{}>", ts_of::<T>()),
        optional: false,
        types: declared::<T>(),
    }
}

fn command<R: TS + 'static>(name: &'static str, args: Vec<Arg>) -> Command {
    Command {
        name,
        args,
        result: ts_of::<R>(),
        types: declared::<R>(),
    }
}

/// Every command of `commands`, in the order of `build.rs`'s `COMMANDS`.
pub fn commands() -> Vec<Command> {
    use series_read_ahead::{Neighbours, SeriesView, ServerDefault};
    type Id = i64;
    vec![
        command::<AppStatus>("app_status", vec![]),
        command::<()>("dismiss_credentials_notice", vec![]),
        command::<Vec<Server>>("list_servers", vec![]),
        command::<Server>("add_server", vec![arg::<AddServerInput>("input")]),
        command::<()>("remove_server", vec![arg::<Id>("id")]),
        command::<Server>(
            "update_server",
            vec![arg::<Id>("id"), arg::<UpdateServerInput>("input")],
        ),
        command::<()>("resume_server", vec![arg::<Id>("id")]),
        command::<CatalogView>(
            "browse_catalog",
            vec![
                arg::<Id>("server_id"),
                arg::<Option<String>>("feed_url"),
                arg::<Option<bool>>("fresh"),
            ],
        ),
        command::<CatalogView>(
            "search_catalog",
            vec![
                arg::<Id>("server_id"),
                arg::<String>("query"),
                arg::<Option<bool>>("fresh"),
            ],
        ),
        command::<BookDetails>("book_details", vec![arg::<Id>("book_id")]),
        command::<StoreRequest>("store_book", vec![arg::<Id>("book_id")]),
        command::<()>(
            "open_book",
            vec![arg::<Id>("book_id"), arg::<Option<i64>>("page")],
        ),
        command::<()>(
            "save_position",
            vec![arg::<Id>("book_id"), arg::<i64>("page")],
        ),
        command::<Option<ServerPosition>>(
            "take_server_position",
            vec![arg::<Id>("book_id"), arg::<Option<u64>>("wait_ms")],
        ),
        command::<()>(
            "save_epub_position",
            vec![
                arg::<Id>("book_id"),
                arg::<String>("cfi"),
                arg::<f64>("fraction"),
                arg::<Option<String>>("chapter"),
            ],
        ),
        command::<Option<EpubPosition>>("epub_position", vec![arg::<Id>("book_id")]),
        command::<Vec<Annotation>>("list_annotations", vec![arg::<Id>("book_id")]),
        command::<Annotation>(
            "add_annotation",
            vec![arg::<Id>("book_id"), arg::<NewAnnotation>("annotation")],
        ),
        command::<Annotation>(
            "update_annotation",
            vec![
                arg::<Id>("id"),
                arg::<Option<String>>("note"),
                arg::<Option<Colour>>("colour"),
            ],
        ),
        command::<()>("delete_annotation", vec![arg::<Id>("id")]),
        command::<String>(
            "export_annotations",
            vec![arg::<Id>("book_id"), arg::<ExportFormat>("format")],
        ),
        command::<()>("remove_book", vec![arg::<Id>("book_id")]),
        command::<()>("retry_book", vec![arg::<Id>("book_id")]),
        command::<DeviceLibrary>(
            "list_on_device",
            vec![arg::<Option<DeviceLibraryQuery>>("query")],
        ),
        command::<Vec<BookDetails>>("list_continue_reading", vec![arg::<Option<u32>>("limit")]),
        command::<DownloadsView>("list_downloads", vec![]),
        command::<()>(
            "watch_downloads",
            vec![channel::<DownloadsView>("on_event")],
        ),
        command::<()>("pause_downloads", vec![]),
        command::<()>("resume_downloads", vec![]),
        command::<()>("clear_done_downloads", vec![]),
        command::<()>("move_book_to_top", vec![arg::<Id>("book_id")]),
        command::<()>("cancel_book", vec![arg::<Id>("book_id")]),
        command::<Settings>("get_settings", vec![]),
        command::<Settings>("set_settings", vec![arg::<Settings>("settings")]),
        command::<StorageUsage>("storage_usage", vec![]),
        command::<Vec<BookToRemove>>("books_removed_if_kept", vec![arg::<u32>("books_kept")]),
        command::<String>("open_window", vec![arg::<String>("view")]),
        command::<()>("close_window", vec![]),
        command::<()>("quit_app", vec![]),
        command::<Vec<BookDetails>>("search_on_device", vec![arg::<String>("query")]),
        command::<usize>(
            "search_everywhere",
            vec![arg::<String>("query"), channel::<ServerAnswer>("on_answer")],
        ),
        command::<BatchView>(
            "keep_feed_offline",
            vec![arg::<Id>("server_id"), arg::<Option<String>>("feed_url")],
        ),
        command::<BatchView>(
            "keep_search_offline",
            vec![arg::<Id>("server_id"), arg::<String>("query")],
        ),
        command::<Vec<BatchView>>("list_batches", vec![]),
        command::<BatchView>("pause_batch", vec![arg::<Id>("id")]),
        command::<BatchView>("resume_batch", vec![arg::<Id>("id")]),
        command::<BatchView>("move_batch_to_top", vec![arg::<Id>("id")]),
        command::<()>("cancel_batch", vec![arg::<Id>("id")]),
        command::<ArchiveComic>("open_comic", vec![arg::<Id>("book_id")]),
        command::<()>(
            "record_pdf_pages",
            vec![arg::<Id>("book_id"), arg::<i64>("pages")],
        ),
        command::<FoundCatalog>(
            "discover_server",
            vec![
                arg::<String>("url"),
                arg::<Option<String>>("username"),
                arg::<Option<String>>("password"),
                arg::<Option<bool>>("trust_self_signed"),
                arg::<Option<bool>>("api_key"),
            ],
        ),
        command::<Option<KosyncAccountView>>("kosync_account", vec![]),
        command::<KosyncAccountView>(
            "kosync_sign_in",
            vec![
                arg::<String>("url"),
                arg::<String>("username"),
                arg::<String>("password"),
            ],
        ),
        command::<()>("kosync_sign_out", vec![]),
        command::<()>("open_in_another_app", vec![arg::<Id>("book_id")]),
        command::<SeriesView>("series_of_book", vec![arg::<Id>("book_id")]),
        command::<SeriesView>(
            "keep_series",
            vec![
                arg::<Id>("book_id"),
                arg::<u32>("keep_next"),
                arg::<Option<u32>>("remove_after_days"),
            ],
        ),
        command::<()>("stop_keeping_series", vec![arg::<Id>("book_id")]),
        command::<Neighbours>("series_neighbours", vec![arg::<Id>("book_id")]),
        command::<()>(
            "mark_book_read",
            vec![arg::<Id>("book_id"), arg::<bool>("read")],
        ),
        command::<series_read_ahead::SeriesMarked>(
            "mark_series_read",
            vec![arg::<Id>("book_id"), arg::<bool>("read")],
        ),
        command::<Option<ServerDefault>>("server_series_default", vec![arg::<Id>("server_id")]),
        command::<Option<ServerDefault>>(
            "set_server_series_default",
            vec![
                arg::<Id>("server_id"),
                arg::<u32>("keep_next"),
                arg::<Option<u32>>("remove_after_days"),
            ],
        ),
        command::<bool>("allow_metered_downloads", vec![]),
        command::<Vec<String>>("system_fonts", vec![]),
        command::<bool>("start_at_login", vec![]),
        command::<bool>("set_start_at_login", vec![arg::<bool>("on")]),
        command::<Vec<LibraryFolder>>("library_folders", vec![]),
        command::<LibraryFolder>("add_library_folder", vec![arg::<String>("path")]),
        command::<RemovedFolder>("remove_library_folder", vec![arg::<Id>("id")]),
        command::<()>("rescan_library_folder", vec![arg::<Id>("id")]),
        command::<()>(
            "watch_library_folders",
            vec![channel::<ScanEvent>("on_event")],
        ),
        command::<()>(
            "watch_desktop_files",
            vec![channel::<crate::local_files::FilesEvent>("on_event")],
        ),
        command::<Vec<crate::commands::ImportedFile>>(
            "import_files",
            vec![arg::<Vec<String>>("paths"), arg::<bool>("copy")],
        ),
    ]
}

/// Types that cross the IPC without being a command's argument or result: every failed command
/// rejects with a [`CommandError`].
fn other_types() -> Vec<Declared> {
    declared::<CommandError>()
}

/// Tauri's name for an argument in JavaScript: `book_id` is `bookId`.
pub fn camel_case(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// JavaScript numbers for what ts-rs calls `bigint` (see the module's docs).
fn numbers(text: &str) -> String {
    text.replace("bigint", "number")
}

const NOTE: &str = "// Generated from Carrel's Rust types by `make contract`: do not edit.\n";

/// The contract's files, by path relative to its folder, and the commands' page.
pub struct Contract {
    pub files: BTreeMap<PathBuf, String>,
    pub doc: String,
}

/// Builds the contract. Panics when two Rust types would take the same TypeScript name.
pub fn contract() -> Contract {
    let commands = commands();
    let mut all: Vec<Declared> = other_types();
    for c in &commands {
        all.extend(c.types.iter().cloned());
        for a in &c.args {
            all.extend(a.types.iter().cloned());
        }
    }
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut owners: BTreeMap<PathBuf, (std::any::TypeId, &'static str)> = BTreeMap::new();
    for d in &all {
        if let Some((id, rust)) = owners.get(&d.file) {
            assert!(
                *id == d.id,
                "{} and {} are both `{}` in TypeScript: rename one with #[ts(rename = …)]",
                rust,
                d.rust,
                d.name
            );
            continue;
        }
        owners.insert(d.file.clone(), (d.id, d.rust));
        files.insert(d.file.clone(), numbers(&d.text));
    }

    // Commands.ts: each command's arguments (as `invoke` takes them) and result.
    let mut body = String::from(
        "\n/** Every command the window may call: its arguments (camelCase, as `invoke` takes \
         them) and what it resolves to. */\nexport type Commands = {\n",
    );
    for c in &commands {
        let args = if c.args.is_empty() {
            "Record<string, never>".to_owned()
        } else {
            let fields: Vec<String> = c
                .args
                .iter()
                .map(|a| {
                    format!(
                        "{}{}: {}",
                        camel_case(a.name),
                        if a.optional { "?" } else { "" },
                        a.ts
                    )
                })
                .collect();
            format!("{{ {} }}", fields.join("; "))
        };
        body.push_str(&format!(
            "  {}: {{ args: {}; result: {} }};\n",
            c.name,
            numbers(&args),
            numbers(&c.result)
        ));
    }
    body.push_str("};\n\n/** A command's name. */\nexport type CommandName = keyof Commands;\n");
    // The types the commands name themselves (not those only their fields name).
    let used: BTreeSet<&str> = body
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .collect();
    let mut text = String::from(NOTE);
    if used.contains("Channel") {
        text.push_str("import type { Channel } from '@tauri-apps/api/core';\n");
    }
    let names: BTreeSet<&str> = all.iter().map(|d| d.name.as_str()).collect();
    for name in names.iter().filter(|n| used.contains(*n)) {
        text.push_str(&format!("import type {{ {name} }} from './{name}';\n"));
    }
    text.push_str(&body);
    files.insert(PathBuf::from("Commands.ts"), text);

    // index.ts: every type by its name.
    let mut index = String::from(NOTE);
    for file in files.keys() {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a file name");
        if stem == "Commands" {
            index.push_str("export type { Commands, CommandName } from './Commands';\n");
        } else {
            index.push_str(&format!("export type {{ {stem} }} from './{stem}';\n"));
        }
    }
    files.insert(PathBuf::from("index.ts"), index);

    Contract {
        files,
        doc: commands_doc(&commands),
    }
}

/// `docs/IPC.md`: where the contract is and every command, with its permission.
fn commands_doc(commands: &[Command]) -> String {
    let mut doc = String::from(
        "<!-- Generated by `make contract` from src-tauri/src/contract.rs: do not edit. -->\n\
# The UI ↔ shell contract

Everything the web UI asks of the app goes through `ui/src/lib/ipc.ts`, which calls the Tauri
commands below (Rust name = UI name, verb_noun). Their types are not written by hand: they are
generated from the Rust types (`ts-rs`, which follows their serde attributes) into
`ui/src/lib/contract/` — one file per type, `Commands.ts` for every command's arguments and
result, `index.ts` for all of them — which `ipc.ts` imports.

- Regenerate after changing a type that crosses the IPC, or a command: `make contract`.
- `make test` (`cargo test -p carrel --lib contract`) regenerates into a temporary folder and
  fails when `ui/src/lib/contract/` or this page differs.
- A new command goes into `src-tauri/build.rs` (`COMMANDS`, its permission), the
  `generate_handler!` list, `src-tauri/src/contract.rs` and, for the windows to call it,
  `capabilities/main.json`; a test checks that the first three agree and that the contract
  names the command's arguments.

Arguments are camelCase in JavaScript (Tauri maps them to the snake_case Rust parameters);
results are JSON as the Rust types serialise them (mostly snake_case fields). Integers are
JavaScript numbers. A failed command rejects with a `CommandError` = `{ kind, message, field? }`:
the UI branches on `kind` (`CommandErrorKind`), never on `message`, and shows `message` beside
`field` when there is one.

The UI passes ids, never file paths. Book content never travels through commands: covers,
pages and whole files are served by the `carrel-cover`, `carrel-page` and `carrel-book`
protocols. A failed protocol request gets one status per failure, in one place
(`src-tauri/src/protocol_errors.rs`), and as its body the `CommandError` the failure is:
`ipc.ts`'s `protocolError` reads it, and the readers check its kind (`not_downloaded`: not on
the device and not arriving now).

## Commands

| command | arguments | result | permission |
| --- | --- | --- | --- |
",
    );
    for c in commands {
        let args = if c.args.is_empty() {
            "—".to_owned()
        } else {
            c.args
                .iter()
                .map(|a| {
                    format!(
                        "`{}{}: {}`",
                        camel_case(a.name),
                        if a.optional { "?" } else { "" },
                        numbers(&a.ts)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        doc.push_str(&format!(
            "| `{}` | {} | `{}` | `{}`{} |\n",
            c.name,
            args.replace('|', "\\|"),
            numbers(&c.result).replace('|', "\\|"),
            c.permission(),
            if c.granted() {
                ""
            } else {
                " (not granted to the windows)"
            }
        ));
    }
    doc
}

/// Writes the contract into `root` (the repository): the folder is emptied first, so a type
/// no longer used leaves with its file.
pub fn write(root: &Path) -> std::io::Result<()> {
    let contract = contract();
    let dir = root.join(CONTRACT_DIR);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    for (file, text) in &contract.files {
        std::fs::write(dir.join(file), text)?;
    }
    let doc = root.join(COMMANDS_DOC);
    if let Some(parent) = doc.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(doc, &contract.doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repository() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("src-tauri is in the repository")
            .to_owned()
    }

    /// `make contract`: `CARREL_CONTRACT_WRITE=1 cargo test -p carrel --lib contract::tests::write`.
    #[test]
    fn write_the_contract_when_asked() {
        if std::env::var_os("CARREL_CONTRACT_WRITE").is_some() {
            write(&repository()).expect("the contract is written");
        }
    }

    /// The contract in the tree is the one the Rust types make: regenerated into a temporary
    /// folder and compared.
    #[test]
    fn the_contract_in_the_tree_is_up_to_date() {
        if std::env::var_os("CARREL_CONTRACT_WRITE").is_some() {
            return;
        }
        let fresh = tempfile::tempdir().unwrap();
        write(fresh.path()).unwrap();
        let root = repository();
        let mut stale = Vec::new();
        for path in [CONTRACT_DIR, COMMANDS_DOC] {
            let output = std::process::Command::new("diff")
                .args(["-ru", "--new-file"])
                .arg(root.join(path))
                .arg(fresh.path().join(path))
                .output();
            match output {
                Ok(o) if o.status.success() => {}
                Ok(o) => stale.push(format!(
                    "{path}:\n{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                )),
                Err(e) => panic!("diff cannot run: {e}"),
            }
        }
        assert!(
            stale.is_empty(),
            "the window contract is out of date — run make contract\n{}",
            stale.join("\n")
        );
    }

    /// The names in `build.rs`'s `COMMANDS`.
    fn build_commands() -> Vec<String> {
        let build = include_str!("../build.rs");
        let start = build.find("const COMMANDS").expect("build.rs has COMMANDS");
        let end = start + build[start..].find("];").expect("COMMANDS ends");
        build[start..end]
            .lines()
            .skip(1)
            .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_command_is_in_the_contract_with_its_permission() {
        let contract: Vec<String> = commands().iter().map(|c| c.name.to_owned()).collect();
        assert_eq!(
            contract,
            build_commands(),
            "contract.rs and build.rs's COMMANDS"
        );
        let handler = include_str!("lib.rs");
        for c in commands() {
            assert!(
                handler.contains(&format!("commands::{},", c.name)),
                "{} is not in generate_handler!",
                c.name
            );
        }
    }

    /// Each command's arguments in the contract are those of its function in `commands.rs`
    /// (the handles Tauri passes itself left out).
    #[test]
    fn every_command_takes_the_arguments_the_contract_names() {
        let source = include_str!("commands.rs");
        for c in commands() {
            let head = format!("pub async fn {}(", c.name);
            let start = source
                .find(&head)
                .unwrap_or_else(|| panic!("{} is not in commands.rs", c.name))
                + head.len();
            let end = start + source[start..].find(')').expect("the arguments end");
            let found: Vec<&str> = source[start..end]
                .split(',')
                .filter_map(|p| {
                    let (name, ty) = p.split_once(':')?;
                    let ty = ty.trim();
                    let handle = ["AppHandle", "Webview", "tauri::Window", "Window"].contains(&ty)
                        || ty.starts_with("State<");
                    (!handle).then_some(name.trim())
                })
                .collect();
            let named: Vec<&str> = c.args.iter().map(|a| a.name).collect();
            assert_eq!(found, named, "the arguments of {}", c.name);
        }
    }

    #[test]
    fn arguments_are_camel_case_and_integers_are_numbers() {
        assert_eq!(camel_case("remove_after_days"), "removeAfterDays");
        assert_eq!(camel_case("id"), "id");
        let contract = contract();
        let commands = &contract.files[Path::new("Commands.ts")];
        assert!(
            commands.contains(
                "browse_catalog: { args: { serverId: number; feedUrl?: string | null; fresh?: boolean | null }; result: CatalogView };"
            ),
            "{commands}"
        );
        assert!(contract.files.values().all(|t| !t.contains("bigint")));
    }
}
