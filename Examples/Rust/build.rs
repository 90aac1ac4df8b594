// Links the installed Lamina through pkg-config (the `pkg-config` program, no crate):
// PKG_CONFIG_PATH chooses the install, as for a C program.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let out = Command::new("pkg-config")
        .args(["--libs", "lamina"])
        .output()
        .expect("pkg-config is needed to find Lamina");
    if !out.status.success() {
        panic!("pkg-config --libs lamina failed: {} (install Lamina with Tools/install.sh and set PKG_CONFIG_PATH)",
               String::from_utf8_lossy(&out.stderr));
    }
    for flag in String::from_utf8(out.stdout).unwrap().split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    }
}
