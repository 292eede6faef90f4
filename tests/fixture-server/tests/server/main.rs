//! Integration tests: a real server on loopback, real HTTP clients.

mod catalog;
mod cli;
mod common;
mod faults;
mod stats;
mod transfer;
