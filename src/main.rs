//! The provider binary: Terraform starts it as a plugin; `--debug` serves it for `TF_REATTACH_PROVIDERS`.

fn main() -> std::process::ExitCode {
    let debug = std::env::args().skip(1).any(|arg| arg == "--debug");
    terraform_provider_hyperpod::run::main(debug)
}
