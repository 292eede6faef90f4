//! What the shell says to the reader — notifications and their buttons, the tray menu — in the
//! reader's language, from the message files the window reads too
//! (`locales/<language>/shell.ftl`, compiled in by `build.rs`; English is the reference and the
//! fallback of a message a language lacks).
//!
//! The language is the one chosen in Settings → Language, else the system's: `LANGUAGE`
//! (a colon-separated list), then `LC_ALL`, `LC_MESSAGES` and `LANG`, as gettext reads them.
//! Until the app chooses ([`choose`]), the shell speaks English, so what it says never depends
//! on the environment a test runs in.
//!
//! Owns nothing of the window's messages; the window formats its own (`ui/src/lib/i18n.svelte.ts`).

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

// `FILES: &[(&str, &str)]`: each language's shell.ftl, by language tag.
include!(concat!(env!("OUT_DIR"), "/shell_messages.rs"));

/// The language every message exists in.
pub const REFERENCE: &str = "en";

/// The shell's messages in one language, with English behind them.
pub struct Messages {
    language: &'static str,
    bundle: FluentBundle<FluentResource>,
    fallback: Option<FluentBundle<FluentResource>>,
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Messages")
            .field("language", &self.language)
            .finish()
    }
}

fn bundle(language: &'static str) -> FluentBundle<FluentResource> {
    let id: LanguageIdentifier = language.parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // The languages Carrel speaks are all written left to right: isolation marks around
    // variables would only reach notification servers as stray characters.
    bundle.set_use_isolating(false);
    for (tag, source) in FILES {
        if *tag != language {
            continue;
        }
        let resource = match FluentResource::try_new((*source).to_owned()) {
            Ok(resource) => resource,
            Err((resource, errors)) => {
                tracing::error!(
                    language,
                    errors = errors.len(),
                    "a shell message file does not parse"
                );
                resource
            }
        };
        if let Err(errors) = bundle.add_resource(resource) {
            tracing::error!(
                language,
                errors = errors.len(),
                "a shell message is written twice"
            );
        }
    }
    bundle
}

impl Messages {
    /// The messages of `language`, one of [`languages`]; English for any other.
    pub fn new(language: &str) -> Messages {
        let language = languages().find(|l| *l == language).unwrap_or(REFERENCE);
        Messages {
            language,
            bundle: bundle(language),
            fallback: (language != REFERENCE).then(|| bundle(REFERENCE)),
        }
    }

    /// The language these messages are in.
    pub fn language(&self) -> &'static str {
        self.language
    }

    /// The message `id` with `args`; its id, logged, when no language has it.
    pub fn format(&self, id: &str, args: &[(&str, FluentValue<'_>)]) -> String {
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, value.clone());
        }
        for bundle in std::iter::once(&self.bundle).chain(self.fallback.as_ref()) {
            let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) else {
                continue;
            };
            let mut errors = Vec::new();
            let text = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
            if !errors.is_empty() {
                tracing::error!(id, errors = ?errors, "a shell message lacks a variable");
            }
            return text.into_owned();
        }
        tracing::error!(id, "no such shell message");
        id.to_owned()
    }

    /// `value` with `digits` decimals, written as the language writes numbers ("2.5", "2,5").
    pub fn decimal(&self, value: f64, digits: usize) -> String {
        let text = format!("{value:.digits$}");
        match self.language {
            "en" => text,
            _ => text.replace('.', ","),
        }
    }
}

/// The languages the shell has messages in, English first.
pub fn languages() -> impl Iterator<Item = &'static str> {
    let mut tags: Vec<&'static str> = FILES.iter().map(|(tag, _)| *tag).collect();
    tags.sort_by_key(|t| (*t != REFERENCE, *t));
    tags.dedup();
    tags.into_iter()
}

/// The languages the system asks for, most wanted first, as BCP 47 tags (`fr-FR`), read the
/// way gettext does: `LANGUAGE` first (unless the locale is C), then `LC_ALL`, `LC_MESSAGES`,
/// `LANG`.
pub fn system_languages(env: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let tag = |value: &str| -> Option<String> {
        let base = value.split(['.', '@']).next().unwrap_or("").trim();
        if base.is_empty() || base == "C" || base == "POSIX" {
            return None;
        }
        Some(base.replace('_', "-"))
    };
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|name| env(name).filter(|v| !v.is_empty()));
    let mut wanted = Vec::new();
    // gettext ignores LANGUAGE when the locale is C.
    if locale.as_deref().and_then(tag).is_some() {
        if let Some(list) = env("LANGUAGE") {
            wanted.extend(list.split(':').filter_map(tag));
        }
    }
    wanted.extend(locale.as_deref().and_then(tag));
    wanted.dedup();
    wanted
}

/// The language Carrel speaks for `wanted`: the first whose language it has (`fr-CA` → `fr`),
/// else English.
pub fn negotiate(wanted: &[String]) -> &'static str {
    for tag in wanted {
        let Ok(id) = tag.parse::<LanguageIdentifier>() else {
            continue;
        };
        let full = id.to_string();
        if let Some(language) = languages().find(|l| *l == full) {
            return language;
        }
        if let Some(language) = languages().find(|l| *l == id.language.as_str()) {
            return language;
        }
    }
    REFERENCE
}

/// The language for a choice of Settings → Language: `system` (or nothing) is the system's.
pub fn language_for(choice: Option<&str>) -> &'static str {
    match choice {
        Some(choice) if choice != "system" && !choice.is_empty() => negotiate(&[choice.to_owned()]),
        _ => negotiate(&system_languages(|name| std::env::var(name).ok())),
    }
}

static CURRENT: RwLock<Option<Arc<Messages>>> = RwLock::new(None);

/// Makes the shell speak `language` from now on (notifications shown afterwards, the tray at
/// its next update).
pub fn choose(language: &str) {
    let messages = Arc::new(Messages::new(language));
    tracing::debug!(language = messages.language(), "shell language");
    *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = Some(messages);
}

/// The shell's messages now: English until [`choose`] is called.
pub fn current() -> Arc<Messages> {
    if let Some(messages) = CURRENT.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return messages.clone();
    }
    let mut slot = CURRENT.write().unwrap_or_else(|e| e.into_inner());
    slot.get_or_insert_with(|| Arc::new(Messages::new(REFERENCE)))
        .clone()
}

/// A message of the current language: `text("tray-open")`.
pub fn text(id: &str) -> String {
    current().format(id, &[])
}

/// A message of the current language with variables:
/// `text_with("tray-books-waiting", &[("count", 3.into())])`.
pub fn text_with(id: &str, args: &[(&str, FluentValue<'_>)]) -> String {
    current().format(id, args)
}

/// A text given as a Fluent string variable.
pub fn arg<'a>(value: impl Into<Cow<'a, str>>) -> FluentValue<'a> {
    FluentValue::String(value.into())
}

/// The script every window runs before the page: the languages the system asks for, so the
/// window paints its first frame in the reader's language.
pub fn window_script() -> String {
    let wanted = system_languages(|name| std::env::var(name).ok());
    format!(
        "window.__CARREL_SYSTEM_LANGUAGES__ = {};",
        serde_json::to_string(&wanted).unwrap_or_else(|_| "[]".into())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn the_system_language_is_read_as_gettext_reads_it() {
        let env = env_of(&[("LANG", "fr_FR.UTF-8")]);
        assert_eq!(system_languages(env), ["fr-FR"]);
        let env = env_of(&[("LANGUAGE", "de:en"), ("LANG", "fr_FR.UTF-8")]);
        assert_eq!(system_languages(env), ["de", "en", "fr-FR"]);
        let env = env_of(&[("LC_MESSAGES", "es_ES@euro"), ("LANG", "fr_FR.UTF-8")]);
        assert_eq!(system_languages(env), ["es-ES"]);
        // A C locale ignores LANGUAGE, as gettext does.
        let env = env_of(&[("LANGUAGE", "de"), ("LANG", "C.UTF-8")]);
        assert!(system_languages(env).is_empty());
        assert!(system_languages(env_of(&[])).is_empty());
    }

    #[test]
    fn the_language_spoken_is_the_first_wanted_that_carrel_has() {
        let wanted = |tags: &[&str]| tags.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        assert_eq!(negotiate(&wanted(&["fr-FR"])), "fr");
        assert_eq!(negotiate(&wanted(&["ja-JP", "de-AT"])), "de");
        assert_eq!(negotiate(&wanted(&["ja-JP"])), "en");
        assert_eq!(negotiate(&[]), "en");
        assert_eq!(language_for(Some("es")), "es");
    }

    #[test]
    fn every_language_has_every_english_message_and_no_other() {
        let ids = |language: &str| {
            let (_, source) = FILES.iter().find(|(t, _)| *t == language).unwrap();
            let resource = FluentResource::try_new((*source).to_owned())
                .unwrap_or_else(|(_, e)| panic!("locales/{language}/shell.ftl: {e:?}"));
            let mut ids: Vec<String> = resource
                .entries()
                .filter_map(|e| match e {
                    fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
                    _ => None,
                })
                .collect();
            ids.sort();
            ids
        };
        let english = ids("en");
        assert!(english.len() >= 10, "{english:?}");
        for language in ["fr", "de", "es"] {
            assert_eq!(ids(language), english, "locales/{language}/shell.ftl");
        }
    }

    #[test]
    fn messages_take_their_language_and_fall_back_to_english() {
        let fr = Messages::new("fr");
        assert_eq!(fr.language(), "fr");
        assert_eq!(fr.format("tray-open", &[]), "Ouvrir Carrel");
        let en = Messages::new("xx");
        assert_eq!(en.language(), "en");
        assert_eq!(en.format("tray-open", &[]), "Open Carrel");
        assert_eq!(en.format("no-such-message", &[]), "no-such-message");
        assert_eq!(fr.decimal(2.54, 1), "2,5");
        assert_eq!(en.decimal(2.54, 1), "2.5");
    }

    #[test]
    fn counts_choose_their_plural_form() {
        let en = Messages::new("en");
        assert_eq!(
            en.format("tray-books-waiting", &[("count", 1.into())]),
            "1 book waiting"
        );
        assert_eq!(
            en.format("tray-books-waiting", &[("count", 3.into())]),
            "3 books waiting"
        );
        let de = Messages::new("de");
        assert_eq!(
            de.format("tray-books-waiting", &[("count", 1.into())]),
            "1 Buch wartet"
        );
    }
}
