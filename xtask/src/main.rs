//! `cargo xtask docs`: writes the registry docs (`docs/`) from the provider's schema and `examples/`
//! (`xtask/tests/docs.rs` fails while the committed pages differ).

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask docs   (renders docs/ from the provider schema and examples/)";

fn main() -> ExitCode {
    let task = std::env::args().nth(1);
    let Some("docs") = task.as_deref() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match xtask::docs::write_all(xtask::repository_root()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("writing docs/: {err}");
            ExitCode::FAILURE
        }
    }
}
