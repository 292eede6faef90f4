//! The layering rule of the crate, checked: every module of a layer uses only its own layer and
//! the layers below it (see the Layout section of the crate docs). Test code may reach up.

use std::path::{Path, PathBuf};

/// The layers, lowest first, as folders of `src/`.
const LAYERS: [&str; 7] = [
    "foundation",
    "opds",
    "library",
    "http",
    "engine",
    "reading",
    "catalog",
];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// What the crate root re-exports, by the layer that owns it.
fn root_item_layer(item: &str) -> Option<&'static str> {
    match item {
        "ErrorKind" | "ErrorField" | "Failure" => Some("foundation"),
        "Error" => Some("library"),
        _ => None,
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file that ships: comments and `#[cfg(test)]` modules left out.
fn shipped_code(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .map(|l| l.split_once("//").map_or(l, |(before, _)| before))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every path that starts at the crate root: `crate::x::…` and each item
/// of `crate::{x::…, y, …}` at its top level.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 1;
            let mut item = String::new();
            let mut items = Vec::new();
            for ch in group.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => items.push(std::mem::take(&mut item)),
                    _ => {}
                }
                if depth == 0 {
                    items.push(std::mem::take(&mut item));
                    break;
                }
                if depth >= 1 && !(ch == ',' && depth == 1) {
                    item.push(ch);
                }
            }
            found.extend(items.iter().filter_map(|i| first_segment(i.trim())));
        } else if let Some(seg) = first_segment(after) {
            found.push(seg);
        }
        rest = after;
    }
    found
}

fn first_segment(path: &str) -> Option<String> {
    let seg: String = path
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!seg.is_empty()).then_some(seg)
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut upward = Vec::new();
    let mut checked = 0;
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let Some(layer) = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
        else {
            continue;
        };
        let Some(own) = rank(layer) else { continue };
        if relative
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("tests.rs"))
        {
            continue;
        }
        checked += 1;
        let code = shipped_code(&std::fs::read_to_string(file).unwrap());
        for target in crate_paths(&code) {
            let target_layer = rank(&target).or_else(|| root_item_layer(&target).and_then(rank));
            match target_layer {
                Some(t) if t > own => upward.push(format!(
                    "{} uses crate::{target} ({})",
                    relative.display(),
                    LAYERS[t]
                )),
                Some(_) => {}
                None => upward.push(format!(
                    "{} uses crate::{target}, which is in no layer",
                    relative.display()
                )),
            }
        }
    }
    assert!(
        checked >= 50,
        "only {checked} modules were found under {}",
        src.display()
    );
    assert!(
        upward.is_empty(),
        "imports that reach a higher layer or none:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_path_reader_sees_grouped_and_nested_imports() {
    let code = "use crate::{\n    engine::executor,\n    foundation::{clock, store::Store},\n};\nlet x = crate::catalog::client::f();";
    assert_eq!(crate_paths(code), ["engine", "foundation", "catalog"]);
    assert_eq!(
        shipped_code("use crate::a; // see crate::c\n#[cfg(test)]\nmod tests { use crate::b; }"),
        "use crate::a; "
    );
}
