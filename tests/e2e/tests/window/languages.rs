//! Carrel in the reader's language: started with `LANG=fr_FR.UTF-8` (or `de_DE`) the window
//! speaks French (German) from its first paint, and the pseudo-language — English accented
//! and 40 % longer — leaves no text cut off or running out of the window on the main screens.
//!
//! The texts expected are read from `locales/<language>/*.ftl`, the files the app bundles, so
//! a reworded message does not break the test and a message not shown does.
//!
//! With `CARREL_E2E_SCREENSHOTS=docs/screenshots` the French library is saved as
//! `library-fr.png` for the README.

use std::collections::HashMap;

use crate::support::{books, go, launch, sel, start_server, wait_for_feed};
use carrel_e2e::{save_docs_screenshot, tools::workspace_root, App, TestCase};
use serde_json::Value;

/// The single-line messages of `locales/<language>/*.ftl`, by id.
fn messages(language: &str) -> HashMap<String, String> {
    let dir = workspace_root().join("locales").join(language);
    let mut out = HashMap::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("ftl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Some((id, value)) = line.split_once(" = ") else {
                continue;
            };
            let id = id.trim();
            if id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !value.contains('{')
            {
                out.insert(id.to_owned(), value.trim().to_owned());
            }
        }
    }
    assert!(
        out.len() > 50,
        "too few messages read from {}",
        dir.display()
    );
    out
}

fn text_of(app: &App, selector: &str) -> String {
    app.wait_for_displayed(selector)
        .unwrap()
        .inner_text()
        .unwrap()
        .trim()
        .to_owned()
}

/// What the window knew before its page ran, and the language it shows.
fn window_language(app: &App) -> (Vec<String>, String) {
    let value = app
        .execute(
            "return [window.__CARREL_SYSTEM_LANGUAGES__ || null, document.documentElement.lang];",
            vec![],
        )
        .unwrap();
    let system = serde_json::from_value::<Option<Vec<String>>>(value[0].clone())
        .unwrap()
        .expect("the shell's languages reach the window before its page runs");
    (system, value[1].as_str().unwrap_or_default().to_owned())
}

#[test]
fn started_in_french_or_german_the_window_speaks_it_from_its_first_paint() {
    let server = start_server(books(6));
    for (lang, language) in [("fr_FR.UTF-8", "fr"), ("de_DE.UTF-8", "de")] {
        let said = messages(language);
        let english = messages("en");
        let case = TestCase::named(&format!("language_{language}"));
        let app = case.launch_with(
            case.options()
                .env("CARREL_SECRETS", "file")
                .env("LANG", lang),
        );
        let (system, shown) = window_language(&app);
        assert_eq!(
            system.first().map(String::as_str),
            Some(&lang[..5].replace('_', "-")[..])
        );
        assert_eq!(
            shown, language,
            "<html lang> of the window started with LANG={lang}"
        );
        // The first view drawn is already in the language: no English frame before it.
        let mut translated = 0;
        for (testid, id) in [
            ("home-nav", "sidebar-home"),
            ("on-device-nav", "sidebar-on-device"),
            ("downloads-nav", "sidebar-downloads"),
            ("settings-nav", "sidebar-settings"),
        ] {
            let text = text_of(&app, &sel(testid));
            assert!(
                text.starts_with(&said[id]),
                "{testid} reads {text:?} with LANG={lang}, not {:?}",
                said[id]
            );
            translated += usize::from(said[id] != english[id]);
        }
        // Some words are the same in both ("Downloads" in German); most are not.
        assert!(
            translated >= 3,
            "the sidebar reads as in English with LANG={lang}"
        );

        carrel_e2e::submit_server_dialog(&app, "Bibliothèque", &server.url("/opds"), None).unwrap();
        app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
        go(&app, "settings-nav", "settings-view");
        let heading = text_of(&app, &format!("{} h1", sel("settings-view")));
        assert_eq!(
            heading, said["settings-title"],
            "the Settings heading with LANG={lang}"
        );
        let select = app.find(&sel("settings-language")).unwrap();
        assert_eq!(select.property("value").unwrap(), Value::from("system"));

        if language == "fr" {
            go(&app, "home-nav", "library-view");
            app.wait_for_text(&sel("server-card"), "Bibliothèque")
                .unwrap();
            app.find(&sel("server-open")).unwrap().click().unwrap();
            app.wait_for_displayed(&sel("browse-view")).unwrap();
            wait_for_feed(&app);
            save_docs_screenshot(&app, "library-fr.png").unwrap();
        }
        app.close().unwrap();
    }
}

/// Every element whose own text is in the pseudo-language and is cut off (clipped by its box)
/// or runs out of the window.
const CUT_OFF: &str = r#"
const pseudo = /[áƀçðéƒĝĥîĵķĺɱñóþǫŕšţûṽŵẋýžÁƁÇÐÉƑĜĤÎĴĶĹṀÑÓÞǪŔŠŢÛṼŴẊÝŽ]/;
const found = [];
for (const el of document.querySelectorAll('body *')) {
  if (!(el instanceof HTMLElement)) continue;
  const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
  if (!own || !pseudo.test(own)) continue;
  const box = el.getBoundingClientRect();
  // Hidden, or only for screen readers (a 1-pixel clipped box).
  if (box.width <= 1 || box.height <= 1) continue;
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || style.display === 'none') continue;
  const scrolls = (o) => o === 'auto' || o === 'scroll';
  const clippedX = el.scrollWidth > el.clientWidth + 1 && style.overflowX !== 'visible' && !scrolls(style.overflowX);
  const clippedY = el.scrollHeight > el.clientHeight + 1 && style.overflowY !== 'visible' && !scrolls(style.overflowY);
  const outside = box.right > window.innerWidth + 1 || box.left < -1;
  if (clippedX || clippedY || outside) {
    const owner = el.closest('[data-testid]');
    found.push(`${clippedX || clippedY ? 'cut off' : 'outside the window'}: <${el.tagName.toLowerCase()} class="${el.className}"> in ${owner ? owner.dataset.testid : 'the page'}: ${own.slice(0, 60)}`);
  }
}
return found;
"#;

fn cut_off(app: &App, screen: &str) -> Vec<String> {
    let found = app.execute(CUT_OFF, vec![]).unwrap();
    let found: Vec<String> = serde_json::from_value(found).unwrap();
    found
        .into_iter()
        .map(|f| format!("{screen}: {f}"))
        .collect()
}

#[test]
fn texts_forty_percent_longer_are_never_cut_off_on_the_main_screens() {
    let server = start_server(books(8));
    let case = TestCase::start();
    let app = launch(&case);
    app.execute(
        // Reloaded after the script has answered, so the answer is not lost with the page.
        "localStorage.setItem('carrel.language', 'pseudo'); setTimeout(() => location.reload(), 100);",
        vec![],
    )
    .unwrap();
    app.wait_until("the window in the pseudo-language", carrel_e2e::default_timeout(), |c| {
        // While the page reloads the script may find no page to run in: asked again.
        let lang = c
            .execute(
                "return document.readyState === 'complete' && document.querySelector('[data-testid=\"home-nav\"]') ? document.querySelector('[data-testid=\"home-nav\"]').textContent : null;",
                vec![],
            )
            .unwrap_or(Value::Null);
        Ok(match lang {
            Value::String(s) if s.contains('Ĥ') => Some(()),
            _ => None,
        })
    })
    .unwrap();

    // The check finds a text cut off when there is one.
    app.execute(
        "const probe = document.createElement('p'); probe.id = 'cut-off-probe'; probe.textContent = 'Ŝéţţîñĝš ŝééŕṽéŕ ɱéñû';
         probe.style.cssText = 'width: 40px; overflow: hidden; white-space: nowrap;';
         document.body.append(probe);",
        vec![],
    )
    .unwrap();
    let found = cut_off(&app, "probe");
    assert!(
        found.iter().any(|f| f.contains("Ŝéţţîñĝš")),
        "a text cut off on purpose was not found: {found:?}"
    );
    app.execute("document.getElementById('cut-off-probe').remove();", vec![])
        .unwrap();

    let mut problems = Vec::new();
    problems.extend(cut_off(&app, "Home, no server yet"));

    carrel_e2e::open_server_dialog(&app).unwrap();
    problems.extend(cut_off(&app, "Add server"));
    app.find(&sel("server-name"))
        .unwrap()
        .fill("Pseudo Library")
        .unwrap();
    app.find(&sel("server-url"))
        .unwrap()
        .fill(&server.url("/opds"))
        .unwrap();
    app.execute(
        "document.querySelector('[data-testid=\"server-save\"]').scrollIntoView({ block: 'nearest' });",
        vec![],
    )
    .unwrap();
    app.find(&sel("server-save")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();

    app.wait_for_text(&sel("server-item"), "Pseudo Library")
        .unwrap();
    app.find(&sel("server-open")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("browse-view")).unwrap();
    wait_for_feed(&app);
    problems.extend(cut_off(&app, "Catalog"));

    for (nav, view, screen) in [
        ("on-device-nav", "on-device-view", "Books on this device"),
        ("downloads-nav", "downloads-view", "Downloads"),
        ("settings-nav", "settings-view", "Settings"),
        ("home-nav", "library-view", "Home with a server"),
    ] {
        go(&app, nav, view);
        problems.extend(cut_off(&app, screen));
    }
    assert!(
        problems.is_empty(),
        "texts cut off in the pseudo-language:\n{}",
        problems.join("\n")
    );
}
