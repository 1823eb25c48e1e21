"""deploy/ is a working recipe, not prose (issue #28): the documented production environment passes
`manage.py check --deploy`, nginx accepts both sites (systemd and compose), and the compose file
has every part of the production shape. The recipe running for real, on this machine:
tests/core/test_multiprocess_nginx.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.live import ROOT, free_port

DEPLOY = ROOT / "deploy"


def production_env() -> dict[str, str]:
    values = {}
    for line in (DEPLOY / "env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def test_check_deploy_is_clean_with_the_documented_production_env(tmp_path):
    documented = production_env()
    assert {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CLAPILOT_HTTPS", "DATABASE_URL", "REDIS_URL"} <= set(
        documented
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"CLAPILOT_TEST_DATABASE", "DATABASE_URL", "REDIS_URL"}
    }
    env.update(documented)
    env["CLAPILOT_VAR_DIR"] = str(tmp_path / "var")  # no system path written by a test
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.skipif(not shutil.which("nginx"), reason="needs Debian's nginx: apt-get install nginx-light")
@pytest.mark.parametrize("site", ["clapilot.conf", "compose.conf"])
def test_nginx_accepts_the_site(site, tmp_path):
    """`nginx -t` of the site as shipped; only what the machine must provide is replaced: the
    certificate (a throwaway one), the snippet's place, the ports (no root here), compose's
    service names (no Docker DNS here)."""
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=clapilot.test",
            "-days",
            "1",
            "-keyout",
            str(tmp_path / "privkey.pem"),
            "-out",
            str(tmp_path / "fullchain.pem"),
        ],
        check=True,
        capture_output=True,
    )
    text = (DEPLOY / "nginx" / site).read_text()
    for shipped, here in [
        ("/etc/ssl/clapilot/", f"{tmp_path}/"),
        (
            "include snippets/clapilot-locations.conf",
            f"include {DEPLOY / 'nginx' / 'clapilot-locations.conf'}",
        ),
        ("listen 80;", f"listen 127.0.0.1:{free_port()};"),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{free_port()} ssl http2;"),
        ("server web1:8000;", "server 127.0.0.1:8001;"),
        ("server web2:8000;", "server 127.0.0.1:8002;"),
    ]:
        text = text.replace(shipped, here)
    text = "\n".join(line for line in text.splitlines() if "listen [::]" not in line)
    (tmp_path / "site.conf").write_text(text)
    temp = " ".join(
        f"{kind}_temp_path {tmp_path}/{kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log; events {{}}\n"
        f"http {{ include /etc/nginx/mime.types; {temp} include {tmp_path}/site.conf; }}\n"
    )
    result = subprocess.run(
        ["nginx", "-t", "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


def test_compose_has_every_part_of_the_production_shape():
    compose = yaml.safe_load((DEPLOY / "compose" / "compose.yaml").read_text())
    services = compose["services"]
    assert {"db", "redis", "init", "web1", "web2", "worker", "beat", "nginx"} <= set(services)
    assert "pgvector" in services["db"]["image"]
    assert services["beat"]["command"][-3:] == ["beat", "--loglevel", "INFO"]
    for name in ("web1", "web2", "worker", "beat"):
        assert services[name]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        assert services[name]["depends_on"]["init"]["condition"] == "service_completed_successfully"
    mounted = {v.split(":")[0] for v in services["nginx"]["volumes"]}
    assert {"../nginx/compose.conf", "../nginx/clapilot-locations.conf"} <= mounted
    assert Path(DEPLOY / "compose" / "Dockerfile").exists()
