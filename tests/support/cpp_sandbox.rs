//! The sandbox the C++ tests run their programs in: the project's own, with
//! a 5 s limit per run (a deadlock or an endless loop ends there).

use std::sync::OnceLock;

use prompteval::config::SandboxConfig;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;

pub fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        Sandbox::new(
            &SandboxConfig {
                timeout_secs: 5.0,
                ..SandboxConfig::default()
            },
            &RUNTIME,
        )
        .expect("sandbox")
    })
}
