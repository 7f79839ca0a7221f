//! The `tarnkappe` command: `serve`, `hash-key`, `anonymize`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use tarnkappe::app::App;
use tarnkappe::config::{hash_key, Config};

/// The allocator is jemalloc: less CPU per proxied request than glibc's malloc at a resident
/// size within the 80 MB budget. Not mimalloc: it commits its arenas eagerly and keeps what
/// start-up freed, which puts the service over that budget (figures: docs/performance.md,
/// "Allocator").
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "tarnkappe",
    version,
    about = "A privacy proxy for LLM traffic: finds personal data in prompts, replaces it with reversible tokens, and restores the originals in the replies."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service: REST API (/api/v1), web page (/) and LLM proxy routes on one listener.
    Serve {
        /// Configuration file; without it the embedded defaults (the shipped proxy.toml) are used.
        /// TARNKAPPE_* environment variables override either.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Read an API key on stdin and print its SHA-256 hex, for `api.keys` in proxy.toml.
    HashKey,
    /// Anonymize a text file (stdin without FILE) and print the result JSON, without a server.
    Anonymize {
        /// File to read; stdin when absent.
        file: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve { config } => serve(config),
        Command::HashKey => {
            let mut key = String::new();
            if std::io::stdin().read_to_string(&mut key).is_err() {
                eprintln!("error: stdin is not UTF-8 text");
                return ExitCode::FAILURE;
            }
            let key = key.trim_end_matches(['\n', '\r']);
            if key.is_empty() {
                eprintln!("error: no key on stdin");
                return ExitCode::FAILURE;
            }
            println!("{}", hash_key(key));
            ExitCode::SUCCESS
        }
        Command::Anonymize { file } => anonymize(file),
    }
}

fn serve(path: Option<PathBuf>) -> ExitCode {
    let config = match Config::load(path.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = tarnkappe::telemetry::init_logging(&config.log) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let app = match App::new(config) {
        Ok(app) => Arc::new(app),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match tarnkappe::server::run(app) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn anonymize(file: Option<PathBuf>) -> ExitCode {
    let mut text = String::new();
    let read = match &file {
        Some(path) => std::fs::read_to_string(path).map(|t| text = t),
        None => std::io::stdin().read_to_string(&mut text).map(|_| ()),
    };
    if let Err(e) = read {
        eprintln!("error: cannot read input: {e}");
        return ExitCode::FAILURE;
    }
    let detector = tarnkappe::detect::Detector::new();
    let result = tarnkappe::tokens::anonymize(&detector, &text);
    match serde_json::to_string_pretty(&result) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
