def configure():
    settings = load()
    apply_Defaults(settings)
    apply_defaults(settings)
    return settings
