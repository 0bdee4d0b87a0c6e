//! Java (MultiPL-E's `java`): javac, then `java -ea` (the tests are
//! `assert`s, off without it), with javatuples on the class path as
//! MultiPL-E's evaluator has it. The JVM reserves far more address space
//! than it uses: the run gets 2 GiB of it, the heap 256 MiB.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

const JVM: &[&str] = &[
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=128m",
    "-XX:-UsePerfData",
];

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Java,
    file: "Problem.java",
    tools: &[
        Tool {
            names: &["javac"],
            package: "openjdk-17-jdk-headless libjavatuples-java",
            version_args: &["-version"],
            sysroot_args: None,
        },
        Tool {
            names: &["java"],
            package: "openjdk-17-jre-headless",
            version_args: &["-version"],
            sysroot_args: None,
        },
    ],
    build: Some(Step {
        program: Program::Tool(0),
        args: &[
            "-J-Xmx512m",
            "-J-XX:+UseSerialGC",
            "-J-XX:CompressedClassSpaceSize=64m",
            "-J-XX:ReservedCodeCacheSize=64m",
            "-J-XX:-UsePerfData",
            "-encoding",
            "UTF-8",
            "-cp",
            "/usr/share/java/javatuples.jar",
            "{file}",
        ],
    }),
    run: Step {
        program: Program::Tool(1),
        args: &[
            "-ea",
            "-Xmx256m",
            "-Xss8m",
            JVM[0],
            JVM[1],
            JVM[2],
            JVM[3],
            JVM[4],
            JVM[5],
            "-cp",
            "/usr/share/java/javatuples.jar:.",
            "{stem}",
        ],
    },
    // Before `main`'s closing brace (the class's is the last one).
    proof: Proof::BeforeClosingBrace {
        nth: 2,
        text: "    System.out.println(\"\\n{nonce}\");",
    },
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &[],
    failure_markers: &["java.lang.AssertionError"],
    memory_mb: Some(2048),
    requires: &[("/usr/share/java/javatuples.jar", "libjavatuples-java")],
    import_block: false,
    env: &[],
    trivial: "class Problem { public static void main(String[] args) {} }\n",
    read: &["/etc/java-17-openjdk"],
};
