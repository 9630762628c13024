def setup(app):
    register(app)
    app.start()
    register(app)
    log_ready(app)
