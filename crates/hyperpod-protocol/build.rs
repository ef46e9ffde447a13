//! Compiles the tfplugin6 and go-plugin protocol definitions (the repository's top-level `proto/`) with protox, so no
//! system `protoc` is needed.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = [
        "../../proto/tfplugin6.proto",
        "../../proto/grpc_controller.proto",
        "../../proto/grpc_stdio.proto",
        "../../proto/grpc_broker.proto",
    ];
    for proto in protos {
        println!("cargo:rerun-if-changed={proto}");
    }
    let descriptors = protox::compile(protos, ["../../proto"])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .generate_default_stubs(true)
        .compile_fds(descriptors)?;
    Ok(())
}
