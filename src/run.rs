//! Process entry: logging, the handshake, TLS, and serving until Terraform says stop or is gone.

use std::io::Write;
use std::process::ExitCode;

use crate::protocol::handshake::{self, handshake_line};
use crate::protocol::host;
use crate::protocol::provider::ProviderService;
use crate::protocol::serve::{SocketDir, serve};
use crate::protocol::signals::Signals;
use crate::protocol::tls;
use crate::provider::{HyperpodProvider, PROVIDER_ADDRESS};

/// Logs go to stderr, which Terraform captures into its own log (`TF_LOG`, `TF_LOG_PROVIDER`). Secrets are never
/// logged: no request bodies, no credentials. Once Terraform is gone stderr is a broken pipe: a line that cannot be
/// written is dropped, where tracing-subscriber's default (`log_internal_errors`) reports the failure with `eprintln!`
/// to that same stderr, which panics whichever task logged.
fn init_logging() {
    let level = ["TF_LOG_PROVIDER_HYPERPOD", "TF_LOG_PROVIDER", "TF_LOG"]
        .iter()
        .find_map(|key| std::env::var(key).ok().filter(|v| !v.is_empty()))
        .map_or("warn", |level| match level.to_ascii_lowercase().as_str() {
            "trace" | "json" => "trace",
            "debug" => "debug",
            "info" => "info",
            "warn" => "warn",
            _ => "error",
        });
    let filter = tracing_subscriber::EnvFilter::new(format!("terraform_provider_hyperpod={level},warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .log_internal_errors(false)
        .init();
}

pub fn main(debug: bool) -> ExitCode {
    // Who started us, read first: the watchdog ends the process once this parent is gone (protocol::host).
    let parent = host::parent_pid();
    init_logging();
    let tls_config = if debug {
        None
    } else {
        match handshake::negotiate(|key| std::env::var(key).ok()) {
            Ok(environment) => {
                if let Some(pem) = environment.client_certificate_pem {
                    match tls::parse_client_certificate(&pem).and_then(tls::server_tls) {
                        Ok(server_tls) => Some(server_tls),
                        Err(err) => {
                            eprintln!("terraform-provider-hyperpod: cannot set up plugin TLS: {err}");
                            return ExitCode::FAILURE;
                        }
                    }
                } else {
                    tracing::warn!("Terraform disabled plugin TLS (TF_DISABLE_PLUGIN_TLS); serving without it");
                    None
                }
            }
            Err(err) => {
                eprintln!("{err}");
                return ExitCode::FAILURE;
            }
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("terraform-provider-hyperpod: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(run(tls_config, debug, parent));
    // Terraform waits for the process to exit after Shutdown, twice or more per command. Joining the runtime's
    // threads only delays that (by a millisecond or two, or for as long as a blocking task is stuck, e.g. in a slow
    // credential_process); what needs cleaning up, the socket directory, was dropped inside `run`.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("terraform-provider-hyperpod: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(server_tls: Option<tls::ServerTls>, debug: bool, parent: u32) -> std::io::Result<()> {
    let signals = Signals::default();
    let socket_dir = SocketDir::new()?;
    let socket_path = socket_dir.socket_path();
    let socket = socket_path.to_string_lossy().to_string();
    let certificate = server_tls.as_ref().map(|t| t.certificate_der.clone());
    let provider = ProviderService::new(HyperpodProvider::default(), signals.clone());

    let interrupt_signals = signals.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            // Terraform forwards Ctrl-C to its plugins and then calls StopProvider; in debug mode it ends serving.
            interrupt_signals.request_stop();
            if debug {
                interrupt_signals.request_shutdown();
            }
        }
    });
    // A killed Terraform never says stop: end with it. In debug mode the parent is the shell or debugger that
    // started the provider, so it serves as long as that lives.
    host::exit_with_parent(parent, signals.clone());

    let on_listening = move || {
        let mut stdout = std::io::stdout().lock();
        let line = if debug {
            reattach_instructions(&socket)
        } else {
            handshake_line(&socket, certificate.as_deref())
        };
        // The handshake line must be the first line on stdout; nothing else is ever printed there.
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    };
    let tls_config = server_tls.map(|t| t.config);
    serve(&socket_path, tls_config, provider, signals, on_listening).await
}

fn reattach_instructions(socket: &str) -> String {
    let reattach = format!(
        r#"{{"{PROVIDER_ADDRESS}":{{"Protocol":"grpc","ProtocolVersion":6,"Pid":{pid},"Test":true,"Addr":{{"Network":"unix","String":"{socket}"}}}}}}"#,
        pid = std::process::id(),
    );
    format!(
        "Provider started in debug mode. To attach Terraform, run it in another shell with:\n\n\
         \tTF_REATTACH_PROVIDERS='{reattach}'\n\n\
         Stop this process with Ctrl-C when done."
    )
}
