# Carrel — set-up, build, run, test and package.
#
#   make run      install what is missing, build the UI and the app, open the Carrel window
#   make test     the same set-up plus the test tools, then every test (core, shell, CLI, UI,
#                 real-window); fails if anything fails or is skipped for lack of a tool, or if
#                 a Rust test is #[ignore]d (only the benchmarks make bench runs may be)
#   make fuzz     the parsers (OPDS feeds, URL templates, comic archives, the protocols' request
#                 paths) under 100,000 generated inputs per target, optimised with overflow checks
#                 (the `fuzz` profile): no panic, no case over 1 s of CPU, memory within caps
#                 (CARREL_FUZZ_CASES=N changes the count)
#   make bench    benchmarks of the engine and the real window, each against a baseline measured
#                 in the same run
#   make package  an installable .deb and .rpm under target/release/bundle/{deb,rpm}/, with
#                 carrel-cli, the desktop entry and the AppStream metainfo (both validated)
#   make test-package  make package, then checks both packages' files and opens a CBZ with
#                 xdg-open in the Carrel of the unpacked .deb (under Xvfb; not part of make test:
#                 it needs the release build)
#   make contract the UI's types of the commands and their data (ui/src/lib/contract/) and
#                 docs/IPC.md, generated from the Rust types

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

ROOT        := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TARGET_DIR  := $(or $(CARGO_TARGET_DIR),$(ROOT)/target)
TOOLS       := $(ROOT)/.tools
TAURI_DRIVER := $(TOOLS)/bin/tauri-driver
SUDO        := $(if $(filter 0,$(shell id -u)),,sudo)
# A Node.js fetched by scripts/ensure-node (where the system's is too old) comes first.
export PATH := $(TOOLS)/node/bin:$(PATH)

# What Tauri needs to build and run on Debian 12 / Ubuntu 24.04.
APP_PACKAGES := libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev \
	libsoup-3.0-dev libjavascriptcoregtk-4.1-dev libdbus-1-dev build-essential pkg-config \
	libssl-dev curl file libarchive-dev
# What the tests need besides: a virtual display, a session bus (and private buses for a
# NetworkManager of the tests' own), the WebDriver for WebKitGTK,
# a real notification daemon, the tools that make test archives and PDFs, and xdg-open (a
# book handed to the system's default app), and the tray test's tools (xwininfo, gdbus).
TEST_PACKAGES := xvfb xauth dbus-x11 dbus-daemon webkit2gtk-driver dunst libnotify-bin mount zip p7zip-full python3 \
	python3-reportlab xdg-utils file x11-utils libglib2.0-bin

.PHONY: run build setup setup-test ui test test-core test-ui test-window bench package clean
.PHONY: test-package
.PHONY: test-interop fuzz contract

## Set-up ------------------------------------------------------------------------------------

setup:
	@$(ROOT)/scripts/ensure-packages $(APP_PACKAGES)
	@$(ROOT)/scripts/ensure-node
	@if [ ! -d $(ROOT)/ui/node_modules ] || [ $(ROOT)/ui/package-lock.json -nt $(ROOT)/ui/node_modules/.package-lock.json ]; then \
		echo "==> npm ci (ui)"; npm ci --prefix $(ROOT)/ui --no-audit --no-fund; fi

setup-test: setup
	@$(ROOT)/scripts/ensure-packages $(TEST_PACKAGES)
	@if [ ! -x $(TAURI_DRIVER) ]; then \
		echo "==> cargo install tauri-driver (into .tools)"; \
		cargo install tauri-driver --locked --root $(TOOLS); fi

## Build and run -----------------------------------------------------------------------------

ui: setup
	@echo "==> building the UI"
	npm run --prefix $(ROOT)/ui build

build: ui
	@echo "==> building the app"
	cargo build -p carrel -p carrel-cli

run: build
	$(TARGET_DIR)/debug/carrel

## The window contract -----------------------------------------------------------------------

# The TypeScript of every type that crosses the IPC, generated from the Rust types into
# ui/src/lib/contract/, and the commands' table in docs/IPC.md (see src-tauri/src/contract.rs).
# `make test` regenerates both into a temporary folder and fails when they differ.
contract:
	@echo "==> the window contract (ui/src/lib/contract/, docs/IPC.md)"
	CARREL_CONTRACT_WRITE=1 cargo test -p carrel --lib contract::tests::write_the_contract_when_asked

## Tests -------------------------------------------------------------------------------------

test: setup-test ui
	@echo "==> building"
	cargo build -p carrel -p carrel-cli -p fixture-server
	@$(MAKE) --no-print-directory test-core test-ui test-window
	@$(MAKE) --no-print-directory test-interop

test-core:
	@echo "==> no Rust test left out by #[ignore] (the benchmarks make bench runs aside)"
	$(ROOT)/scripts/check-ignored-tests
	@echo "==> no import cycle between the modules of a core crate"
	$(ROOT)/scripts/check-module-cycles
	@echo "==> formatting (rustfmt's defaults)"
	cargo fmt --all --check
	@echo "==> the window contract is up to date (else: make contract)"
	cargo test -p carrel --lib contract::
	@echo "==> core, CLI, shell and test-server tests"
	cargo test --workspace --exclude carrel-e2e --exclude carrel-interop

test-ui:
	@echo "==> UI types and Svelte checks (svelte-check, warnings fail)"
	npm run --prefix $(ROOT)/ui check
	@echo "==> UI unit tests"
	npm test --prefix $(ROOT)/ui

test-window:
	@echo "==> real-window tests (Xvfb, session bus, tauri-driver)"
	CARREL_APP=$(TARGET_DIR)/debug/carrel TAURI_DRIVER=$(TAURI_DRIVER) \
		xvfb-run -a -s "-screen 0 1600x1000x24" dbus-run-session -- \
		cargo test -p carrel-e2e -- --test-threads=1

# Carrel's CLI and window against real servers (Codex, Calibre-Web, calibre's content server) on
# loopback. The servers are installed and cached under ~/.cache/carrel/interop/ by the script;
# the window tests among them run like the other window tests.
test-interop: setup-test ui
	@$(ROOT)/scripts/ensure-interop-servers
	@echo "==> interop tests against real servers"
	cargo build -p carrel-cli -p carrel
	CARREL_APP=$(TARGET_DIR)/debug/carrel TAURI_DRIVER=$(TAURI_DRIVER) \
		xvfb-run -a -s "-screen 0 1600x1000x24" dbus-run-session -- \
		cargo test -p carrel-interop

## Fuzzing ----------------------------------------------------------------------------------

# The fuzz binary of the core (tests/fuzz/) and the OPDS property tests, optimised with overflow
# checks (the `fuzz` profile of Cargo.toml), then the shell's request-path properties (tiny
# parsers: the test build `make test` already has runs 100,000 cases in seconds, so no optimised
# build of the whole shell is needed). `cargo test` runs the same properties with 1,000 cases.
FUZZ_CASES ?= $(or $(CARREL_FUZZ_CASES),100000)

fuzz: ui
	@$(ROOT)/scripts/ensure-packages p7zip-full
	@echo "==> fuzzing the core's parsers ($(FUZZ_CASES) cases per property, optimised)"
	CARREL_FUZZ_CASES=$(FUZZ_CASES) cargo test --profile fuzz -p carrel-core --test fuzz -- --nocapture
	CARREL_FUZZ_CASES=$(FUZZ_CASES) cargo test --profile fuzz -p carrel-opds --lib hostile_input_tests
	@echo "==> fuzzing the protocols' request paths ($(FUZZ_CASES) cases per property)"
	CARREL_FUZZ_CASES=$(FUZZ_CASES) cargo test -p carrel --lib protocol_requests_tests

## Benchmarks --------------------------------------------------------------------------------

# The engine's benchmarks, then the real window's (page turns, cold start): the app in a release
# build, driven like the window tests under Xvfb and a session bus. Missing tools fail the run.
bench: setup-test ui
	@echo "==> building the app (release) for the window benchmarks"
	cargo build --release -p carrel
	@echo "==> benchmarks: the engine, then the real window (Xvfb, session bus, tauri-driver)"
	CARREL_APP=$(TARGET_DIR)/release/carrel TAURI_DRIVER=$(TAURI_DRIVER) \
		xvfb-run -a -s "-screen 0 1600x1000x24" dbus-run-session -- \
		cargo run --release -p carrel-bench
	@echo "==> benchmarks against a real Codex (signed in vs anonymous, identity)"
	@$(ROOT)/scripts/ensure-interop-servers
	cargo build --release -p carrel-cli
	CARREL_CLI=$(TARGET_DIR)/release/carrel-cli cargo test --release -p carrel-interop -- --ignored --nocapture codex_bench

## Packaging ---------------------------------------------------------------------------------

# The Tauri CLI reads the config through the src-tauri/tauri.conf.json link and resolves its
# relative paths from src-tauri/, while the build resolves them from the root: absolute paths
# for the UI and the icons mean the same to both.
# carrel-cli ships in the packages too, for scripts and timers, and so does the AppStream
# metainfo (what software centres show). The desktop entry is packaging/linux/carrel.desktop.hbs
# rather than the bundler's own: that one has neither the freedesktop categories and keywords
# Carrel wants nor a %F, without which "Open with Carrel" would start it without the file; its
# MimeType line comes from bundle.fileAssociations.
LINUX_FILES := "/usr/bin/carrel-cli":"$(TARGET_DIR)/release/carrel-cli","/usr/share/metainfo/app.carrel.desktop.metainfo.xml":"$(ROOT)/packaging/linux/app.carrel.desktop.metainfo.xml"
LINUX_PACKAGE := {"files":{$(LINUX_FILES)},"desktopTemplate":"$(ROOT)/packaging/linux/carrel.desktop.hbs"}
PACKAGE_PATHS := {"build":{"frontendDist":"$(ROOT)/ui/dist"},"bundle":{"icon":["$(ROOT)/icons/32x32.png","$(ROOT)/icons/128x128.png","$(ROOT)/icons/256x256.png","$(ROOT)/icons/512x512.png"],"linux":{"deb":$(LINUX_PACKAGE),"rpm":$(LINUX_PACKAGE)}}}
# What checks the packages: the AppStream and desktop-entry validators, rpm (the .rpm's header,
# and installing it into a temporary root), and `mimetype` (a file's type from the
# shared-mime-info database, which xdg-open asks for outside GNOME and KDE).
PACKAGE_TEST_PACKAGES := appstream desktop-file-utils rpm libfile-mimeinfo-perl xdg-utils

package: ui
	@$(ROOT)/scripts/ensure-packages appstream desktop-file-utils
	@echo "==> the AppStream metainfo is valid"
	appstreamcli validate --no-net $(ROOT)/packaging/linux/app.carrel.desktop.metainfo.xml
	@echo "==> building the .deb and the .rpm"
	cargo build --release -p carrel-cli
	cd $(ROOT) && TAURI_APP_PATH=src-tauri $(ROOT)/ui/node_modules/.bin/tauri build --bundles deb,rpm --config '$(PACKAGE_PATHS)'
	@ls -la $(TARGET_DIR)/release/bundle/deb/*.deb $(TARGET_DIR)/release/bundle/rpm/*.rpm

# The packages just built, the .deb unpacked and the .rpm installed by rpm into a temporary root:
# their files, the desktop entry and metainfo validated as installed, then the unpacked .deb as
# the desktop sees it (XDG_DATA_DIRS), Carrel made the default for CBZ with xdg-mime, and
# `xdg-open book.cbz` must start the packaged carrel with the book, which opens it (and a second
# book opened meanwhile goes to the running Carrel). Nothing is installed into the system:
# everything lives in a temporary folder (scripts/test-package).
test-package: setup-test package
	@$(ROOT)/scripts/ensure-packages $(PACKAGE_TEST_PACKAGES)
	@echo "==> the packages, installed into a temporary folder, and xdg-open"
	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
		$(ROOT)/scripts/test-package $(TARGET_DIR)/release/bundle

clean:
	cargo clean
	rm -rf $(ROOT)/ui/dist $(ROOT)/ui/node_modules $(TOOLS)
