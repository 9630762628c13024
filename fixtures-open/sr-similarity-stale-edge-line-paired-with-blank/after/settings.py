from dataclasses import dataclass


@dataclass
class Settings:
    name: str
    mode: str = "plain"
    parent: str = ""
    retries: int = 0
    verbose: bool = False
    dry_run: bool = False
    timeout: float = 30.0
    headers: dict = None
    limit: int = 0
    cache_enabled: bool = False


DEFAULTS = Settings(name="default")
