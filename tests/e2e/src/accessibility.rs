//! Accessibility checks of the page shown, by axe-core (`ui/node_modules/axe-core/axe.min.js`,
//! a development dependency of the UI): the script is put into the page through WebDriver and
//! run against the whole document for WCAG 2.0 and 2.1 A and AA and axe's best practices.
//!
//! A page that does not take the script (a content security policy that refuses it, a missing
//! `npm install`) is an error, never a pass: a check that did not run says nothing.

use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::tools;
use crate::webdriver::Client;

/// The rule sets run: WCAG 2.0 and 2.1, levels A and AA, and axe's best practices.
pub const RULE_TAGS: [&str; 5] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

/// One rule the page breaks, with every element that breaks it.
#[derive(Debug, Clone, Deserialize)]
pub struct Violation {
    /// The rule's id (`color-contrast`, `landmark-one-main`, …).
    pub id: String,
    /// `minor`, `moderate`, `serious` or `critical`.
    #[serde(default)]
    pub impact: Option<String>,
    /// What the rule asks, in a line.
    pub help: String,
    #[serde(rename = "helpUrl", default)]
    pub help_url: String,
    pub nodes: Vec<ViolationNode>,
}

/// One element that breaks a rule.
#[derive(Debug, Clone, Deserialize)]
pub struct ViolationNode {
    /// The element's selector; in a shadow root or a frame, one selector per level.
    pub target: Vec<Value>,
    /// What is wrong with it, as axe words it.
    #[serde(rename = "failureSummary", default)]
    pub failure_summary: Option<String>,
    #[serde(default)]
    pub html: String,
}

impl ViolationNode {
    /// The selector, levels joined by ` >>> `.
    pub fn selector(&self) -> String {
        fn flat(v: &Value) -> String {
            match v {
                Value::String(s) => s.clone(),
                Value::Array(a) => a.iter().map(flat).collect::<Vec<_>>().join(" >>> "),
                other => other.to_string(),
            }
        }
        self.target
            .iter()
            .map(flat)
            .collect::<Vec<_>>()
            .join(" >>> ")
    }
}

impl Violation {
    pub fn impact(&self) -> &str {
        self.impact.as_deref().unwrap_or("unknown")
    }

    /// `serious` or `critical`: never allowed.
    pub fn is_serious(&self) -> bool {
        matches!(self.impact(), "serious" | "critical")
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "[{}] {}: {} ({})",
            self.impact(),
            self.id,
            self.help,
            self.help_url
        )?;
        for node in &self.nodes {
            writeln!(f, "    at {}", node.selector())?;
            if !node.html.is_empty() {
                let html: String = node.html.chars().take(160).collect();
                writeln!(f, "       {html}")?;
            }
            if let Some(summary) = &node.failure_summary {
                for line in summary.lines() {
                    writeln!(f, "       {}", line.trim())?;
                }
            }
        }
        Ok(())
    }
}

/// Where axe-core's browser build is: `ui/node_modules/axe-core/axe.min.js`.
pub fn axe_script_path() -> PathBuf {
    tools::workspace_root().join("ui/node_modules/axe-core/axe.min.js")
}

/// Puts axe-core into the page shown (once per document) and returns its version.
pub fn inject_axe(client: &Client) -> Result<String> {
    let present = client.execute(
        "return (window.axe && typeof window.axe.run === 'function') ? window.axe.version : null;",
        vec![],
    )?;
    if let Some(version) = present.as_str() {
        return Ok(version.to_string());
    }
    let path = axe_script_path();
    let source = std::fs::read_to_string(&path).map_err(|e| {
        Error::io(
            format!("cannot read {} (run `npm ci --prefix ui`)", path.display()),
            e,
        )
    })?;
    // The script's body is axe's own source: it defines `window.axe` as it does in a page.
    let script = format!(
        "{source}\n;return (window.axe && typeof window.axe.run === 'function') ? window.axe.version : null;"
    );
    let version = client
        .execute(&script, vec![])
        .map_err(|e| Error::Protocol {
            command: "inject axe-core".into(),
            detail: format!("the page refused axe-core: {e}"),
        })?;
    version
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| Error::Protocol {
            command: "inject axe-core".into(),
            detail: format!("axe-core did not load into the page (got {version})"),
        })
}

/// Runs axe-core on the whole document shown and returns the rules it breaks.
///
/// Frames are left out: the only frames in the window are the EPUB reader's pages, which show
/// the book's own markup.
pub fn run_axe(client: &Client) -> Result<Vec<Violation>> {
    inject_axe(client)?;
    const RUN: &str = "const done = arguments[arguments.length - 1];
        const tags = arguments[0];
        window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'], iframes: false })
          .then((r) => done({ ok: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
                 nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary, html: n.html })) })) }),
                (e) => done({ err: String(e && e.stack || e) }));";
    let answer = client.execute_async(RUN, vec![json!(RULE_TAGS)])?;
    if let Some(err) = answer.get("err") {
        return Err(Error::Protocol {
            command: "axe.run".into(),
            detail: err.as_str().unwrap_or_default().to_string(),
        });
    }
    let list = answer.get("ok").cloned().unwrap_or(Value::Null);
    serde_json::from_value(list.clone()).map_err(|e| Error::Protocol {
        command: "axe.run".into(),
        detail: format!("{e} in {list}"),
    })
}
