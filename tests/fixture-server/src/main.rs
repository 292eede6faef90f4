//! `fixture-server`: runs the fixture library server until interrupted.

use std::io::Write;
use std::process::ExitCode;

use fixture_server::{Config, Server};

const USAGE: &str = "\
usage: fixture-server [options]

  --port P                 port on 127.0.0.1 (0 = any free port; default 0)
  --books N                number of books (default 12)
  --seed S                 seed for the generated content (default 1)
  --page-bytes N           approximate size of one comic page (default 40960)
  --feed-page-size N       entries per acquisition feed page (default 20)
  --comic-pages ID=N       make book ID a comic with N pages (repeatable)
  --gone ID                book ID answers 410 Gone (repeatable)
  --range on|off           honour Range requests (default on)
  --etag on|off            send ETags (default on)
  --last-modified on|off   send Last-Modified (default on)
  --one-based-pages        number streamed pages from 1
  --auth USER:PASS         require HTTP Basic authentication
  --token TOKEN            require (or also accept) Authorization: Bearer TOKEN
  --bookmark-param NAME    page requests with NAME=true move the reading position
  --latency-ms N           delay every response by N ms
  --bandwidth BYTES/S      cap body throughput
  --error-rate R           answer 503 to this fraction of requests (0.0-1.0)
  --reset-mid-body         reset connections half-way through bodies
  --truncate-body          close connections half-way through bodies
  --stall-ms N             pause N ms half-way through bodies
  --fault-path PREFIX      apply faults only to URLs starting with PREFIX
  --fault-next K           apply faults only to the next K matching requests
  -h, --help               show this help
";

fn parse_switch(flag: &str, value: &str) -> Result<bool, String> {
    match value {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("{flag} expects on or off, not {value:?}")),
    }
}

fn parse_number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{flag}: {value:?} is not a valid number"))
}

fn parse_args(args: Vec<String>) -> Result<Option<Config>, String> {
    let mut config = Config::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it.next().ok_or_else(|| format!("{flag} needs a value")),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--port" => config.port = parse_number(&flag, &value()?)?,
            "--books" => config.books = parse_number(&flag, &value()?)?,
            "--seed" => config.seed = parse_number(&flag, &value()?)?,
            "--page-bytes" => config.page_bytes = parse_number(&flag, &value()?)?,
            "--feed-page-size" => config.feed_page_size = parse_number(&flag, &value()?)?,
            "--comic-pages" => {
                let v = value()?;
                let (id, pages) = v
                    .split_once('=')
                    .or_else(|| v.split_once(':'))
                    .ok_or_else(|| format!("{flag} expects ID=PAGES"))?;
                config
                    .comic_pages
                    .insert(parse_number(&flag, id)?, parse_number(&flag, pages)?);
            }
            "--gone" => {
                config.gone.insert(parse_number(&flag, &value()?)?);
            }
            "--range" => config.behavior.range = parse_switch(&flag, &value()?)?,
            "--etag" => config.behavior.etag = parse_switch(&flag, &value()?)?,
            "--last-modified" => config.behavior.last_modified = parse_switch(&flag, &value()?)?,
            "--one-based-pages" => config.behavior.one_based_pages = true,
            "--auth" => config.behavior.auth = Some(value()?),
            "--token" => config.behavior.bearer_token = Some(value()?),
            "--sessions" => config.behavior.sessions = true,
            "--home-without-catalog-link" => config.behavior.home_without_catalog_link = true,
            "--session-max-uses" => {
                config.behavior.session_max_uses = Some(
                    value()?
                        .parse()
                        .map_err(|_| "--session-max-uses takes a number".to_string())?,
                )
            }
            "--bookmark-param" => config.behavior.bookmark_param = Some(value()?),
            "--latency-ms" => config.faults.latency_ms = parse_number(&flag, &value()?)?,
            "--bandwidth" => config.faults.bandwidth = Some(parse_number(&flag, &value()?)?),
            "--error-rate" => config.faults.error_rate = parse_number(&flag, &value()?)?,
            "--reset-mid-body" => config.faults.reset_mid_body = true,
            "--truncate-body" => config.faults.truncate_body = true,
            "--stall-ms" => config.faults.stall_ms = parse_number(&flag, &value()?)?,
            "--fault-path" => config.faults.path_prefix = Some(value()?),
            "--fault-next" => config.faults.next_requests = Some(parse_number(&flag, &value()?)?),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    config.validate()?;
    Ok(Some(config))
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn main() -> ExitCode {
    let config = match parse_args(std::env::args().skip(1).collect()) {
        Ok(Some(config)) => config,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("fixture-server: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("fixture-server: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = match Server::start(config) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("fixture-server: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening on {}", server.base_url());
    let _ = out.flush();
    drop(out);
    runtime.block_on(wait_for_signal());
    server.stop();
    ExitCode::SUCCESS
}
