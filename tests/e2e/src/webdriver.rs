//! A small W3C WebDriver client: just the commands the window tests use, over blocking HTTP.
//!
//! A [`Client`] is one session on a remote end (here tauri-driver, which forwards to
//! WebKitWebDriver). An [`Element`] borrows its client, so `app.wait_for(sel)?.click()?` reads
//! as it does in the browser. Waits poll every [`POLL_INTERVAL`] and treat "no such element"
//! and "stale element" as "not yet"; any other error ends the wait at once.
//!
//! Shown or not: WebKitWebDriver's own "is displayed" and "element text" count an element whose
//! `overflow` is `hidden` and whose children are only text as hidden, even when it is on screen
//! (a truncated label with `text-overflow: ellipsis`, say). So the waits here, which ask "does
//! the reader see it", use [`Element::is_visible`] and [`Element::inner_text`], which ask the
//! page's layout; [`Element::is_displayed`] and [`Element::text`] stay the plain W3C commands.
//!
//! Reference: <https://www.w3.org/TR/webdriver2/> (endpoint names below follow its table).

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};

/// The key under which W3C remote ends put an element reference.
pub const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
/// How often waits look again.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// How long an HTTP command may take before the client gives up on it.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// How long waits last unless told otherwise: `CARREL_E2E_TIMEOUT` seconds, else 15 s
/// (debug builds on a small machine can take a few seconds to draw the first screen).
pub fn default_timeout() -> Duration {
    std::env::var("CARREL_E2E_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(15))
}

/// A window's position and size in CSS pixels, as WebDriver reports them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// One WebDriver session.
pub struct Client {
    agent: ureq::Agent,
    /// `http://127.0.0.1:PORT`, no trailing slash.
    base: String,
    session_id: String,
}

impl Client {
    /// Opens a session on the remote end at `base_url` with the given `capabilities` object
    /// (the value of `"capabilities"` in the W3C New Session body).
    pub fn new_session(base_url: &str, capabilities: Value) -> Result<Client> {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(5))
            .timeout(COMMAND_TIMEOUT)
            .build();
        let base = base_url.trim_end_matches('/').to_string();
        let reply = request(
            &agent,
            "POST",
            &format!("{base}/session"),
            Some(json!({ "capabilities": capabilities })),
            "new session",
        )?;
        let session_id = reply
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::Protocol {
                command: "new session".into(),
                detail: format!("no sessionId in {reply}"),
            })?
            .to_string();
        Ok(Client {
            agent,
            base,
            session_id,
        })
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Ends the session. The remote end closes the app's window (and the app with it).
    pub fn delete_session(&self) -> Result<()> {
        self.command("DELETE", "", None, "delete session").map(drop)
    }

    /// Sends one command of this session; `path` is relative to `/session/{id}`.
    /// Returns the reply's `value`.
    pub fn command(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
        name: &str,
    ) -> Result<Value> {
        let url = format!("{}/session/{}{}", self.base, self.session_id, path);
        request(&self.agent, method, &url, body, name)
    }

    /// A GET of this session whose reply is a string.
    fn get_string(&self, path: &str, name: &str) -> Result<String> {
        string(self.command("GET", path, None, name)?, name)
    }

    // ---- finding elements --------------------------------------------------------------

    /// The first element matching the CSS `selector`; a `no such element` error when none does.
    pub fn find(&self, selector: &str) -> Result<Element<'_>> {
        let value = self.locate("/element", selector, "find")?;
        Element::from_reply(self, selector, &value)
    }

    /// Every element matching `selector`, in document order (maybe none).
    pub fn find_all(&self, selector: &str) -> Result<Vec<Element<'_>>> {
        let value = self.locate("/elements", selector, "find all")?;
        elements_from_reply(self, selector, &value)
    }

    /// The reply to a search of the document (`/element` or `/elements`) for `selector`.
    fn locate(&self, path: &str, selector: &str, name: &str) -> Result<Value> {
        self.command(
            "POST",
            path,
            Some(css(selector)),
            &format!("{name} {selector}"),
        )
    }

    /// The first element matching `selector`, or `None`.
    pub fn try_find(&self, selector: &str) -> Result<Option<Element<'_>>> {
        match self.find(selector) {
            Ok(e) => Ok(Some(e)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether at least one element matches `selector`.
    pub fn exists(&self, selector: &str) -> Result<bool> {
        Ok(!self.find_all(selector)?.is_empty())
    }

    // ---- waiting -----------------------------------------------------------------------

    /// Polls `probe` until it returns `Some`, for at most `timeout`. "No such element" and
    /// "stale element" errors count as "not yet"; other errors end the wait. `what` names the
    /// awaited state in the time-out error.
    pub fn wait_until<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut probe: impl FnMut(&Client) -> Result<Option<T>>,
    ) -> Result<T> {
        let start = Instant::now();
        let mut last = None;
        loop {
            match probe(self) {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => {}
                Err(e) if e.is_not_found() => last = Some(e.to_string()),
                Err(e) => return Err(e),
            }
            if start.elapsed() >= timeout {
                return Err(Error::Timeout {
                    what: what.to_string(),
                    after: start.elapsed(),
                    last,
                });
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    /// Waits (for [`default_timeout`]) until an element matches `selector`.
    pub fn wait_for(&self, selector: &str) -> Result<Element<'_>> {
        self.wait_for_within(selector, default_timeout())
    }

    /// Waits at most `timeout` until an element matches `selector`.
    pub fn wait_for_within(&self, selector: &str, timeout: Duration) -> Result<Element<'_>> {
        let id = self.wait_until(&format!("an element matching `{selector}`"), timeout, |c| {
            Ok(c.try_find(selector)?.map(|e| e.id))
        })?;
        Ok(Element::new(self, selector, id))
    }

    /// Waits until an element matching `selector` is visible ([`Element::is_visible`]).
    pub fn wait_for_displayed(&self, selector: &str) -> Result<Element<'_>> {
        let id = self.wait_until(
            &format!("a visible element matching `{selector}`"),
            default_timeout(),
            |c| {
                for e in c.find_all(selector)? {
                    if e.is_visible()? {
                        return Ok(Some(e.id));
                    }
                }
                Ok(None)
            },
        )?;
        Ok(Element::new(self, selector, id))
    }

    /// Waits until an element matching `selector` has text ([`Element::inner_text`])
    /// containing `needle`; returns the element's whole text.
    pub fn wait_for_text(&self, selector: &str, needle: &str) -> Result<String> {
        let mut seen = String::new();
        let found = self.wait_until(
            &format!("`{selector}` to contain the text {needle:?}"),
            default_timeout(),
            |c| {
                let elements = c.find_all(selector)?;
                if elements.is_empty() {
                    seen = "no element matched".to_string();
                }
                for e in elements {
                    let text = e.inner_text()?;
                    if text.contains(needle) {
                        return Ok(Some(text));
                    }
                    seen = format!("text {text:?}");
                }
                Ok(None)
            },
        );
        found.map_err(|e| match e {
            Error::Timeout { what, after, last } => Error::Timeout {
                what,
                after,
                last: if seen.is_empty() { last } else { Some(seen) },
            },
            other => other,
        })
    }

    /// Waits until no visible element matches `selector` (gone, or hidden).
    pub fn wait_for_hidden(&self, selector: &str) -> Result<()> {
        self.wait_until(
            &format!("`{selector}` to be hidden"),
            default_timeout(),
            |c| {
                for e in c.find_all(selector)? {
                    if e.is_visible()? {
                        return Ok(None);
                    }
                }
                Ok(Some(()))
            },
        )
    }

    /// Waits until no element matches `selector`.
    pub fn wait_for_absent(&self, selector: &str) -> Result<()> {
        self.wait_until(
            &format!("no element to match `{selector}`"),
            default_timeout(),
            |c| Ok(c.find_all(selector)?.is_empty().then_some(())),
        )
    }

    // ---- scripts and documents ---------------------------------------------------------

    /// Runs `script` as the body of a function in the page and returns its `return` value.
    /// `args` are its `arguments` (an [`Element::as_arg`] becomes the DOM element).
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
            "execute script",
        )
    }

    /// Like [`Client::execute`], for a script that ends by calling its last argument.
    pub fn execute_async(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.command(
            "POST",
            "/execute/async",
            Some(json!({ "script": script, "args": args })),
            "execute async script",
        )
    }

    /// The document's title.
    pub fn title(&self) -> Result<String> {
        self.get_string("/title", "get title")
    }

    /// The document's URL.
    pub fn url(&self) -> Result<String> {
        self.get_string("/url", "get current url")
    }

    /// The serialised DOM.
    pub fn page_source(&self) -> Result<String> {
        self.get_string("/source", "get page source")
    }

    // ---- the window --------------------------------------------------------------------

    pub fn window_rect(&self) -> Result<Rect> {
        let value = self.command("GET", "/window/rect", None, "get window rect")?;
        rect(value, "get window rect")
    }

    /// Moves and/or resizes the window; `None` leaves a coordinate as it is. Returns the rect
    /// the window ended up with.
    pub fn set_window_rect(
        &self,
        x: Option<f64>,
        y: Option<f64>,
        width: Option<f64>,
        height: Option<f64>,
    ) -> Result<Rect> {
        let body = json!({ "x": x, "y": y, "width": width, "height": height });
        let value = self.command("POST", "/window/rect", Some(body), "set window rect")?;
        rect(value, "set window rect")
    }

    /// Resizes the window, leaving it where it is.
    pub fn set_window_size(&self, width: f64, height: f64) -> Result<Rect> {
        self.set_window_rect(None, None, Some(width), Some(height))
    }

    /// Lets the page come to rest: waits (at most 2 s) for running CSS animations and
    /// transitions that have an end, then for two animation frames, so what the DOM says is
    /// also what is painted. WebKit's screenshot shows the last painted frame, which can lag a
    /// DOM change by a frame.
    pub fn settle(&self) -> Result<()> {
        const RUNNING: &str =
            "return document.getAnimations().filter(a => a.playState === 'running'
            && a.effect && a.effect.getComputedTiming().endTime !== Infinity).length;";
        const FRAMES: &str = "const done = arguments[arguments.length - 1];
            const timer = setTimeout(() => done(false), 1000);
            requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); done(true); }));";
        let settled = self.wait_until("animations to end", Duration::from_secs(2), |c| {
            Ok((c.execute(RUNNING, vec![])? == 0).then_some(()))
        });
        match settled {
            Ok(()) | Err(Error::Timeout { .. }) => {}
            Err(e) => return Err(e),
        }
        self.execute_async(FRAMES, vec![]).map(drop)
    }

    /// A PNG of the window's web content as last painted (see [`Client::settle`]).
    pub fn screenshot_png(&self) -> Result<Vec<u8>> {
        self.painting(|| {
            let value = self.command("GET", "/screenshot", None, "take screenshot")?;
            decode_png(value, "take screenshot")
        })
    }

    /// Runs `take` while the page paints a frame at every animation frame. WebKit answers a
    /// screenshot after the page's next painted frame; with compositing off (as the app runs on
    /// a machine without a GPU, see `webview_rendering` in the app) a page with nothing changing
    /// paints none, and the screenshot would never answer. One transparent pixel in the window's
    /// corner has its opacity changed at every frame, which makes WebKit repaint it (the same
    /// pixels: it has nothing to show); it is removed afterwards.
    fn painting<T>(&self, take: impl FnOnce() -> Result<T>) -> Result<T> {
        const START: &str = "const dot = document.createElement('div');
            dot.id = 'carrel-e2e-paint';
            dot.setAttribute('aria-hidden', 'true');
            dot.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;'
                + 'pointer-events:none;z-index:2147483647;background:transparent';
            document.documentElement.appendChild(dot);
            let odd = false;
            const tick = () => {
                if (!dot.isConnected) return;
                odd = !odd;
                dot.style.opacity = odd ? '0.5' : '1';
                requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
            return null;";
        const STOP: &str = "document.getElementById('carrel-e2e-paint')?.remove(); return null;";
        self.execute(START, vec![])?;
        let taken = take();
        // A page that navigated away took the dot with it.
        let _ = self.execute(STOP, vec![]);
        taken
    }

    /// Lets the page [settle](Client::settle), then writes a PNG of the window's web content
    /// to `path`, creating its folder. For pictures on purpose (the docs) and on failure.
    pub fn save_screenshot(&self, path: &Path) -> Result<()> {
        // A page too busy to settle is still worth a picture.
        let _ = self.settle();
        write_creating_dirs(path, &self.screenshot_png()?)
    }
}

/// An element of the page, found by a CSS selector.
#[derive(Clone)]
pub struct Element<'c> {
    client: &'c Client,
    id: String,
    selector: String,
}

impl std::fmt::Debug for Element<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Element({} #{})", self.selector, self.id)
    }
}

impl<'c> Element<'c> {
    fn new(client: &'c Client, selector: &str, id: String) -> Self {
        Element {
            client,
            id,
            selector: selector.to_string(),
        }
    }

    fn from_reply(client: &'c Client, selector: &str, value: &Value) -> Result<Self> {
        let id = element_id(value).ok_or_else(|| Error::Protocol {
            command: format!("find {selector}"),
            detail: format!("no element reference in {value}"),
        })?;
        Ok(Element::new(client, selector, id))
    }

    /// The remote end's reference for this element.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The selector this element was found by.
    pub fn selector(&self) -> &str {
        &self.selector
    }

    /// The element as an argument of [`Client::execute`].
    pub fn as_arg(&self) -> Value {
        json!({ ELEMENT_KEY: self.id })
    }

    fn command(&self, method: &str, what: &str, body: Option<Value>, name: &str) -> Result<Value> {
        self.client.command(
            method,
            &format!("/element/{}{}", self.id, what),
            body,
            &format!("{name} {}", self.selector),
        )
    }

    /// A GET of this element whose reply is true or false.
    fn get_bool(&self, what: &str, name: &str) -> Result<bool> {
        boolean(self.command("GET", what, None, name)?, name)
    }

    pub fn click(&self) -> Result<()> {
        self.command("POST", "/click", Some(json!({})), "click")
            .map(drop)
    }

    /// Types `text` into the element. Whether text already there is kept depends on where the
    /// remote end puts the caret; [`Element::fill`] clears first.
    pub fn send_keys(&self, text: &str) -> Result<()> {
        self.command(
            "POST",
            "/value",
            Some(json!({ "text": text })),
            "send keys to",
        )
        .map(drop)
    }

    /// Empties an input or textarea.
    pub fn clear(&self) -> Result<()> {
        self.command("POST", "/clear", Some(json!({})), "clear")
            .map(drop)
    }

    /// Empties the field, then types `text`.
    pub fn fill(&self, text: &str) -> Result<()> {
        self.clear()?;
        self.send_keys(text)
    }

    /// The element's text as WebKitWebDriver's "Get Element Text" gives it (see the module doc
    /// for when that misses visible text).
    pub fn text(&self) -> Result<String> {
        string(
            self.command("GET", "/text", None, "get text of")?,
            "get element text",
        )
    }

    /// The element's text as laid out (`innerText`): without what `display: none` or
    /// `visibility: hidden` hides, with text merely clipped by `overflow`.
    pub fn inner_text(&self) -> Result<String> {
        let value = self
            .client
            .execute("return arguments[0].innerText;", vec![self.as_arg()])?;
        string(value, &format!("innerText of {}", self.selector))
    }

    /// Whether the reader can see the element, by the page's own layout: connected, not
    /// `display: none`, `visibility: hidden`, `opacity: 0` or `content-visibility: hidden`
    /// (itself or an ancestor), and with a non-empty box. Falls back to
    /// [`Element::is_displayed`] in a webview without `checkVisibility`.
    pub fn is_visible(&self) -> Result<bool> {
        const SCRIPT: &str = "const e = arguments[0];
            if (!e.isConnected) return false;
            if (typeof e.checkVisibility !== 'function') return null;
            const box = e.getBoundingClientRect();
            return e.checkVisibility({ opacityProperty: true, visibilityProperty: true })
                && box.width > 0 && box.height > 0;";
        match self.client.execute(SCRIPT, vec![self.as_arg()])? {
            Value::Bool(shown) => Ok(shown),
            _ => self.is_displayed(),
        }
    }

    /// An HTML attribute, `None` when the element does not have it.
    pub fn attribute(&self, name: &str) -> Result<Option<String>> {
        let value = self.command(
            "GET",
            &format!("/attribute/{name}"),
            None,
            "get attribute of",
        )?;
        Ok(value.as_str().map(str::to_string))
    }

    /// A DOM property (`value`, `checked`, …), as JSON.
    pub fn property(&self, name: &str) -> Result<Value> {
        self.command("GET", &format!("/property/{name}"), None, "get property of")
    }

    /// W3C "Is Element Displayed" (WebKitWebDriver's heuristic; see the module doc).
    pub fn is_displayed(&self) -> Result<bool> {
        self.get_bool("/displayed", "is displayed")
    }

    pub fn is_enabled(&self) -> Result<bool> {
        self.get_bool("/enabled", "is enabled")
    }

    /// The first descendant matching `selector`.
    pub fn find(&self, selector: &str) -> Result<Element<'c>> {
        let value = self.command("POST", "/element", Some(css(selector)), "find in")?;
        Element::from_reply(self.client, selector, &value)
    }

    /// Every descendant matching `selector`.
    pub fn find_all(&self, selector: &str) -> Result<Vec<Element<'c>>> {
        let value = self.command("POST", "/elements", Some(css(selector)), "find all in")?;
        elements_from_reply(self.client, selector, &value)
    }

    /// A PNG of just this element (painted as [`Client::screenshot_png`] says).
    pub fn screenshot_png(&self) -> Result<Vec<u8>> {
        self.client.painting(|| {
            let value = self.command("GET", "/screenshot", None, "take screenshot of")?;
            decode_png(value, "take element screenshot")
        })
    }
}

// ---- plumbing ------------------------------------------------------------------------------

fn css(selector: &str) -> Value {
    json!({ "using": "css selector", "value": selector })
}

fn element_id(value: &Value) -> Option<String> {
    value
        .get(ELEMENT_KEY)
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn elements_from_reply<'c>(
    client: &'c Client,
    selector: &str,
    value: &Value,
) -> Result<Vec<Element<'c>>> {
    let list = value.as_array().ok_or_else(|| Error::Protocol {
        command: format!("find all {selector}"),
        detail: format!("expected a list, got {value}"),
    })?;
    list.iter()
        .map(|v| Element::from_reply(client, selector, v))
        .collect()
}

fn string(value: Value, command: &str) -> Result<String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(Error::Protocol {
            command: command.into(),
            detail: format!("expected a string, got {other}"),
        }),
    }
}

fn boolean(value: Value, command: &str) -> Result<bool> {
    value.as_bool().ok_or_else(|| Error::Protocol {
        command: command.into(),
        detail: format!("expected true or false, got {value}"),
    })
}

fn rect(value: Value, command: &str) -> Result<Rect> {
    serde_json::from_value(value.clone()).map_err(|e| Error::Protocol {
        command: command.into(),
        detail: format!("{e} in {value}"),
    })
}

fn decode_png(value: Value, command: &str) -> Result<Vec<u8>> {
    let encoded = string(value, command)?;
    base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|e| Error::Protocol {
            command: command.into(),
            detail: format!("the screenshot is not base64: {e}"),
        })
}

pub(crate) fn write_creating_dirs(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
    }
    std::fs::write(path, bytes)
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// Sends one HTTP request (reporting slow ones when `CARREL_E2E_TRACE` is set) and unwraps the W3C `{"value": …}` envelope, turning error answers
/// into [`Error::WebDriver`].
fn request(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    body: Option<Value>,
    command: &str,
) -> Result<Value> {
    let started = Instant::now();
    let reply = send(agent.request(method, url), body, command);
    let slow = started.elapsed();
    if slow > Duration::from_millis(250)
        && std::env::var_os("CARREL_E2E_TRACE").is_some_and(|v| !v.is_empty())
    {
        eprintln!("carrel-e2e: `{command}` took {:.2} s", slow.as_secs_f64());
    }
    reply
}

/// Sends `req` (with `body` as JSON, if any) and unwraps the reply: see [`request`].
fn send(req: ureq::Request, body: Option<Value>, command: &str) -> Result<Value> {
    let outcome = match body {
        Some(body) => req.send_json(body),
        None => req.call(),
    };
    let (status, response) = match outcome {
        Ok(response) => (response.status(), response),
        Err(ureq::Error::Status(status, response)) => (status, response),
        Err(ureq::Error::Transport(t)) => {
            return Err(Error::Transport {
                command: command.into(),
                detail: t.to_string(),
            })
        }
    };
    let mut raw = Vec::new();
    response
        .into_reader()
        .read_to_end(&mut raw)
        .map_err(|e| Error::Transport {
            command: command.into(),
            detail: format!("reading the answer: {e}"),
        })?;
    let parsed: Option<Value> = serde_json::from_slice(&raw).ok();
    let value = parsed.as_ref().and_then(|v| v.get("value")).cloned();
    if (200..300).contains(&status) {
        return value.ok_or_else(|| Error::Protocol {
            command: command.into(),
            detail: format!(
                "HTTP {status} without a JSON value: {}",
                String::from_utf8_lossy(&raw)
            ),
        });
    }
    let field = |name: &str| {
        value
            .as_ref()
            .and_then(|v| v.get(name))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Err(Error::WebDriver {
        command: command.into(),
        status,
        code: field("error").unwrap_or_else(|| "unknown error".into()),
        message: field("message")
            .unwrap_or_else(|| String::from_utf8_lossy(&raw).trim().to_string()),
    })
}
