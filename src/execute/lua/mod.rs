//! Lua (MultiPL-E's `lua`): `lua prog.lua`, the tests in luaunit, which
//! exits with the number of failed tests.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Lua,
    file: "prog.lua",
    tools: &[Tool {
        names: &["lua5.4", "lua"],
        package: "lua5.4 lua-unit",
        version_args: &["-v"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["{file}"],
    },
    // luaunit's run returns the count of failures and errors; the proof is
    // written only when it is 0, before the exit MultiPL-E's tests make.
    proof: Proof::Replace {
        from: "os.exit(lu.LuaUnit.run())",
        to: "local prompteval_failed = lu.LuaUnit.run()\nif prompteval_failed == 0 then io.write(\"\\n{nonce}\\n\") end\nos.exit(prompteval_failed)",
    },
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &[
        "syntax error near",
        "unexpected symbol near",
        "expected near",
        "expected (to close",
    ],
    failure_markers: &["FAIL ", "Failed tests:", " failure"],
    memory_mb: None,
    requires: &[("/usr/share/lua/5.4/luaunit.lua", "lua-unit")],
    import_block: false,
    env: &[],
    trivial: "",
    read: &[],
};
