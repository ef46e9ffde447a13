//! The provider binary: Terraform starts it as a plugin; `--debug` serves it for `TF_REATTACH_PROVIDERS`;
//! `report …` writes the governance report of a plan instead (Terraform never passes arguments to a plugin).

fn main() -> std::process::ExitCode {
    let mut arguments = std::env::args_os().skip(1);
    if terraform_provider_hyperpod::report::cli::is_subcommand(arguments.next().as_deref()) {
        return terraform_provider_hyperpod::report::cli::main(arguments.collect());
    }
    let debug = std::env::args().skip(1).any(|arg| arg == "--debug");
    terraform_provider_hyperpod::run::main(debug)
}
