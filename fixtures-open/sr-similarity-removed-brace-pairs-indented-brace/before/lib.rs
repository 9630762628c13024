mod tests {
    fn prop() -> bool {
        if ready() {
            true
        }
    }

    fn other() {}
}
