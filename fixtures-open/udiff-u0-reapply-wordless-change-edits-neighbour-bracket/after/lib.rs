struct A {
    x: u8,
}
};
fn main() {}
