//! The README's main example is the `loopback` example, byte for byte, so that the program a
//! user copies from the README is the one CI builds with clippy and runs as a doctest.

#[test]
fn readme_example_is_the_loopback_example() {
    let readme = include_str!("../README.md");
    let example = include_str!("../examples/loopback.rs");
    let start = readme
        .find("```rust\n")
        .expect("the README has a Rust block")
        + "```rust\n".len();
    let end = start + readme[start..].find("```").expect("the block ends");
    assert_eq!(&readme[start..end], example);
}
