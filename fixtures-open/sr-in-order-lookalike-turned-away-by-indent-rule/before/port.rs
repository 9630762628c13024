fn start() {
    // open the port first
    let port = open();
	port.flush();
    log("started");
}

fn restart() {
    // open the port first
    port.flush();
    log("restarted");
}
