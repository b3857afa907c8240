"""The bare Flask "hello" app served by gunicorn beside the pbem server (``bench.hello:app``)."""

from flask import Flask

app = Flask(__name__)


@app.get("/hello")
def hello():
    return "hello\n"
