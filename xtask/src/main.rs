//! `cargo xtask docs`: writes the registry docs (`docs/`) from the provider's schema and `examples/`
//! (`xtask/tests/docs.rs` fails while the committed pages differ). `cargo xtask structure`: prints the import circles,
//! each resource's plan path and its largest function, the public type names declared twice and the resource folders
//! off the shape (`xtask/tests/structure.rs` holds them at zero).

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask docs                (renders docs/ from the provider schema and examples/)
       cargo xtask structure [--root DIR]   (import circles, plan paths, shared type names, resource folders,
                                             attribute names typed as strings of
                                             this checkout, or of another, e.g. a worktree of an earlier commit)
       cargo xtask structure --plan-path RESOURCE   (every function RESOURCE's plan reaches, by file, with its size)
       cargo xtask structure --names        (every file that types attribute names as strings, with its count)";

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let root = xtask::repository_root();
    let result = match arguments.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["docs"] => xtask::docs::write_all(root).map_err(|err| format!("writing docs/: {err}")),
        ["structure"] => xtask::structure::report(root)
            .map(|report| print!("{report}"))
            .map_err(|err| format!("reading the sources: {err}")),
        ["structure", "--plan-path", folder] => xtask::structure::plan_path_report(root, folder)
            .map(|report| print!("{report}"))
            .map_err(|err| format!("reading the sources: {err}")),
        ["structure", "--names"] => xtask::structure::names_report(root)
            .map(|report| print!("{report}"))
            .map_err(|err| format!("reading the sources: {err}")),
        ["structure", "--root", other] => xtask::structure::report(std::path::Path::new(other))
            .map(|report| print!("{report}"))
            .map_err(|err| format!("reading the sources: {err}")),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}
