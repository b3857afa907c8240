"""WSGI entry point: ``gunicorn wsgi:app``."""

from server import create_app

# Schema upgrades run in the release step (pbem-server db upgrade), not in web workers.
app = create_app({"PBEM_WITH_MIGRATIONS": False})
