"""nginx in front of a cirulla server, with the very file the README gives operators
(deploy/nginx/cirulla.conf): TLS with a certificate made for the run, and HTTP/2.

Used by benchmarks/web_weight.py (`--proxy nginx`) and tests/test_web_proxy.py, so that
the file shipped is the file measured and tested.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx

__all__ = ["NGINX", "SITE", "free_port", "nginx_config", "start_nginx", "wait_healthy"]

ROOT = Path(__file__).resolve().parent.parent
#: nginx itself (Debian: the nginx-light package)
NGINX = os.environ.get("CIRULLA_NGINX", "/usr/sbin/nginx")
SITE = ROOT / "deploy" / "nginx" / "cirulla.conf"


def nginx_config(site: str, tmp: Path, port: int, upstream: str) -> str:
    """deploy/nginx/cirulla.conf (`site`) made to run here: listening on `port` of
    127.0.0.1 with the run's certificate in `tmp`, passing to `upstream` (host:port),
    inside a whole nginx.conf of one process that keeps its files in `tmp`."""
    for marker, value in (
        ("server 127.0.0.1:8000;", f"server {upstream};"),
        ("listen 443 ", f"listen 127.0.0.1:{port} "),
        ("/etc/ssl/cirulla/fullchain.pem", str(tmp / "cert.pem")),
        ("/etc/ssl/cirulla/privkey.pem", str(tmp / "key.pem")),
    ):
        if marker not in site:  # the shipped file changed: say so rather than run another
            raise ValueError(f"deploy/nginx/cirulla.conf no longer has {marker!r}")
        site = site.replace(marker, value)
    temps = "\n".join(
        f"    {kind}_temp_path {tmp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""daemon off;
master_process off;
pid {tmp / "nginx.pid"};
error_log {tmp / "error.log"} warn;
events {{}}
http {{
    access_log off;
{temps}
{site}
}}
"""


def start_nginx(upstream: str, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    """nginx in front of `upstream` with deploy/nginx/cirulla.conf; its https base URL."""
    tmp.mkdir(parents=True, exist_ok=True)
    key, cert = tmp / "key.pem", tmp / "cert.pem"
    request = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    subprocess.run(
        ["openssl", *request, "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    port = free_port()
    conf = tmp / "nginx.conf"
    conf.write_text(nginx_config(SITE.read_text(encoding="utf-8"), tmp, port, upstream))
    log = (tmp / "nginx.out").open("ab")
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp)], stdout=log, stderr=log)
    base = f"https://127.0.0.1:{port}"
    wait_healthy(proc, base, 30, "nginx", lambda: (tmp / "nginx.out").read_text())
    return proc, base


def wait_healthy(
    proc: subprocess.Popen[bytes],
    base: str,
    seconds: float,
    name: str,
    said: Callable[[], str] = lambda: "",
) -> None:
    """Wait until `base`/api/health answers 200 (any certificate); `name` is killed and
    the error says what it printed (`said`) if it exits or takes over `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}: {said()}")
        try:
            if httpx.get(f"{base}/api/health", timeout=1, verify=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"{name} did not start")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
