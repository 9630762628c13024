fn load(path: &str) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

fn save(path: &str, data: &str) -> Option<()> {
    let ok = check(
        path,
    );
    if path.is_empty() {
        return None;
    }
    std::fs::write(path, data).ok()
}
