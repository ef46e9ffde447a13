//! The plugin's gRPC server: a Unix socket in a private directory, mutual TLS with Terraform's pinned certificate,
//! the tfplugin6 provider service and go-plugin's controller, stdio and broker services.

use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::Connected;
use tonic::{Request, Response, Status};

use super::plugin::PluginProvider;
use super::proto::plugin;
use super::proto::tfplugin6::provider_server::ProviderServer;
use super::provider::ProviderService;
use super::signals::Signals;

/// How long a client gets to finish its TLS handshake before the connection is dropped.
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// After Shutdown, how long in-flight responses get before the process exits anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(250);

/// A private directory holding the plugin's socket; removed when dropped.
pub struct SocketDir {
    dir: tempfile::TempDir,
}

impl SocketDir {
    pub fn new() -> io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        // Mode 0700, so only this user can reach the socket. tempfile's default for directories is 0777 less the
        // umask (usually 0755), which would let anyone on the machine connect to the socket.
        let dir = tempfile::Builder::new()
            .prefix("terraform-provider-hyperpod-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()?;
        Ok(Self { dir })
    }
    pub fn socket_path(&self) -> PathBuf {
        self.dir.path().join("plugin.sock")
    }
}

/// A connection the gRPC server can serve: TLS over a Unix stream, or the plain stream when TLS is off.
pub enum PluginConnection {
    Tls(Box<tokio_rustls::server::TlsStream<UnixStream>>),
    Plain(UnixStream),
}

impl Connected for PluginConnection {
    type ConnectInfo = ();
    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for PluginConnection {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
            Self::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for PluginConnection {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
            Self::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
            Self::Plain(stream) => Pin::new(stream).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
            Self::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
        }
    }
}

/// Accepts connections on `listener`; with `tls`, only clients that complete mutual TLS reach the server.
fn accept_connections(
    listener: UnixListener,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> ReceiverStream<io::Result<PluginConnection>> {
    let (sender, receiver) = mpsc::channel(16);
    tokio::spawn(async move {
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(err) => {
                    tracing::warn!(error = %err, "accepting a plugin connection failed");
                    continue;
                }
            };
            let sender = sender.clone();
            let tls = tls.clone();
            // Handshakes run on their own task so a slow or hostile client cannot hold up the others.
            tokio::spawn(async move {
                let connection = match tls {
                    None => PluginConnection::Plain(stream),
                    Some(config) => {
                        let acceptor = tokio_rustls::TlsAcceptor::from(config);
                        match tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                            Ok(Ok(tls_stream)) => PluginConnection::Tls(Box::new(tls_stream)),
                            Ok(Err(err)) => {
                                tracing::warn!(error = %err, "refused a plugin connection: TLS handshake failed");
                                return;
                            }
                            Err(_) => {
                                tracing::warn!("refused a plugin connection: TLS handshake timed out");
                                return;
                            }
                        }
                    }
                };
                let _ = sender.send(Ok(connection)).await;
            });
        }
    });
    ReceiverStream::new(receiver)
}

/// Serves the provider on `socket_path` until Shutdown is requested: by Terraform (`GRPCController.Shutdown`), by
/// Ctrl-C in debug mode, or by `host::exit_with_parent` once the process that started the plugin is gone (a killed
/// Terraform never asks). The caller prints the handshake line once the listener exists (`on_listening`), so
/// Terraform never dials a socket that is not there yet.
pub async fn serve<P: PluginProvider>(
    socket_path: &Path,
    tls: Option<Arc<rustls::ServerConfig>>,
    provider: ProviderService<P>,
    signals: Signals,
    on_listening: impl FnOnce(),
) -> io::Result<()> {
    let listener = UnixListener::bind(socket_path)?;
    on_listening();
    let incoming = accept_connections(listener, tls);
    let shutdown_signals = signals.clone();
    let server = tonic::transport::Server::builder()
        .add_service(ProviderServer::new(provider).max_decoding_message_size(256 * 1024 * 1024))
        .add_service(plugin::grpc_controller_server::GrpcControllerServer::new(Controller {
            signals: signals.clone(),
        }))
        .add_service(plugin::grpc_stdio_server::GrpcStdioServer::new(Stdio {
            signals: signals.clone(),
        }))
        .add_service(plugin::grpc_broker_server::GrpcBrokerServer::new(Broker))
        .serve_with_incoming_shutdown(incoming, async move { shutdown_signals.shutdown_requested().await });
    tokio::pin!(server);
    tokio::select! {
        result = &mut server => result.map_err(io::Error::other),
        () = signals.shutdown_requested() => {
            // Graceful shutdown waits for Terraform to hang up; give in-flight replies a moment, then go.
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, &mut server).await;
            Ok(())
        }
    }
}

struct Controller {
    signals: Signals,
}

#[tonic::async_trait]
impl plugin::grpc_controller_server::GrpcController for Controller {
    async fn shutdown(&self, _: Request<plugin::Empty>) -> Result<Response<plugin::Empty>, Status> {
        tracing::debug!("Terraform asked the plugin to shut down");
        self.signals.request_stop();
        self.signals.request_shutdown();
        Ok(Response::new(plugin::Empty {}))
    }
}

/// Our output reaches Terraform through the process's own stderr, so the stdio stream stays open and silent.
/// The boxed stream type tonic's generated traits expect from streaming methods.
type ResponseStream<T> = Pin<Box<dyn futures::Stream<Item = Result<T, Status>> + Send + 'static>>;

struct Stdio {
    signals: Signals,
}

#[tonic::async_trait]
impl plugin::grpc_stdio_server::GrpcStdio for Stdio {
    async fn stream_stdio(&self, _: Request<()>) -> Result<Response<ResponseStream<plugin::StdioData>>, Status> {
        let signals = self.signals.clone();
        let stream = futures::stream::once(async move {
            signals.shutdown_requested().await;
            None
        })
        .filter_map(futures::future::ready);
        Ok(Response::new(Box::pin(stream)))
    }
}

/// The broker lets plugins open extra connections; providers never need one, so it only drains the client stream.
struct Broker;

#[tonic::async_trait]
impl plugin::grpc_broker_server::GrpcBroker for Broker {
    async fn start_stream(
        &self,
        request: Request<tonic::Streaming<plugin::ConnInfo>>,
    ) -> Result<Response<ResponseStream<plugin::ConnInfo>>, Status> {
        let mut inbound = request.into_inner();
        let stream = futures::stream::once(async move {
            while let Ok(Some(_)) = inbound.message().await {}
            None
        })
        .filter_map(futures::future::ready);
        Ok(Response::new(Box::pin(stream)))
    }
}

use futures::StreamExt as _;
