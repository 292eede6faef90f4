// No console window behind Carrel on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    carrel_app::run();
}
