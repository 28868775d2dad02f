"""`make soak`: mixed load on two serving processes on Postgres and Redis, with faults, then a reconciliation.

Not part of CI (it restarts the machine's Postgres). For SOAK_SECONDS (default 300) five partners send about
SOAK_RATE requests a second (default 20) to two `app.serving` processes: submissions, generations (async and
synchronous, each with an Idempotency-Key that is retried after a cut connection), record reads, listings
and embed pages and PDFs. The openai engine writes against a loopback LLM server answering in ~1 s, so runs
are mid-way when a fault lands. Faults, at fractions of the run: kill -9 of one server (restarted 2 s
later), a Postgres restart, the webhook receiver down for 60 s, SIGTERM of the other server (restarted).
Webhook rescue rounds are on (WEBHOOK_RESCUE_SECONDS, shortened for the soak).

Then it waits for the runs and deliveries to settle and prints: runs stranded, partners locked out longer
than a minute, webhooks lost or duplicated, runs billed, 5xx and cut requests by cause, processes left
behind, and the print workers' memory. It exits 1 when any of the first four is not zero.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import psycopg
import requests

from tests.factories import submission
from tests.support.receiver import WebhookReceiver

from .llm_server import llm_server
from .servers import free_port

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ADMIN_URL = os.environ.get("SOAK_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
DATABASE = "soak"
REDIS_URL = os.environ.get("SOAK_REDIS_URL", "redis://127.0.0.1:6379/14")
SECONDS = float(os.environ.get("SOAK_SECONDS", "300"))
RATE = float(os.environ.get("SOAK_RATE", "20"))
PARTNERS = 5
LOCKOUT_LIMIT = 60.0


class Receiver:
    """The partners' webhook endpoint, which the soak can take down (refusing connections) and bring back."""

    def __init__(self):
        self.port = free_port()
        self.servers: list[WebhookReceiver] = []
        self.server: WebhookReceiver | None = None
        self.up()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def up(self) -> None:
        self.server = WebhookReceiver(port=self.port).start()
        self.servers.append(self.server)

    def down(self) -> None:
        self.server.stop()

    def ids(self) -> Counter[str]:
        """How many times each delivery id was received (and answered 200)."""
        return Counter(r.headers["x-service-delivery"] for server in self.servers for r in list(server.received))


class Servers:
    """Two serving processes, as `make serve` runs them (app.serving), on one Postgres and one Redis."""

    def __init__(self, env: dict):
        self.env = env
        self.ports = [free_port(), free_port()]
        self.processes: list[subprocess.Popen | None] = [None, None]
        self.pids_seen: set[int] = set()

    def base(self, index: int) -> str:
        return f"http://127.0.0.1:{self.ports[index]}"

    def start(self, index: int) -> None:
        command = [str(BIN / "python"), "-m", "app.serving", f"--listen=127.0.0.1:{self.ports[index]}", "--threads=16",
                   "--connection-limit=1000", "--channel-timeout=30", "--asyncore-use-poll", "wsgi:app"]
        process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL,
                                   stderr=open(ROOT / "instance" / f"soak-server-{index}.log", "ab"))
        self.processes[index] = process
        self.pids_seen.add(process.pid)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.base(index)}/healthz", timeout=1).status_code == 200:
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server {index} did not become healthy")

    def signal(self, index: int, signum: int) -> None:
        process = self.processes[index]
        process.send_signal(signum)
        process.wait(60)

    def stop_all(self) -> None:
        for index, process in enumerate(self.processes):
            if process is not None and process.poll() is None:
                self.signal(index, signal.SIGTERM)


def _helpers() -> dict[int, tuple[int, str]]:
    """This checkout's multiprocessing helpers running now (fork servers, print workers, resource trackers):
    pid -> (parent pid, command line)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if "multiprocessing" in cmdline and str(BIN) in cmdline:
            found[int(entry.name)] = (parent, cmdline[:100])
    return found


def left_behind(servers: set[int], before: set[int]) -> list[tuple[int, str]]:
    """Servers of the soak still running, and helpers started during the soak still running after it."""
    alive = [(pid, "server") for pid in servers if Path(f"/proc/{pid}").exists()
             and b"app.serving" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    return alive + [(pid, cmdline) for pid, (_, cmdline) in _helpers().items() if pid not in before]


def worker_memory_mb() -> list[float]:
    """Resident memory of the print workers running now: the children of a fork server."""
    helpers = _helpers()
    sizes = []
    for pid, (parent, _) in helpers.items():
        if parent not in helpers or "forkserver" not in helpers[parent][1]:
            continue
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(int(line.split()[1]) / 1024)
        except OSError:
            pass
    return sizes


class Load:
    """The partners' traffic, and what it met."""

    def __init__(self, servers: Servers, keys: list[str]):
        self.servers, self.keys = servers, keys
        self.outcomes: Counter[str] = Counter()
        self.assessments: dict[int, list[int]] = {i: [] for i in range(len(keys))}
        self.busy_since: dict[int, float] = {}
        self.longest_lockout: dict[int, float] = Counter()
        self.accepted_runs = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.memory_peaks: list[float] = []

    def request(self, method: str, path: str, partner: int, **kwargs) -> requests.Response | None:
        index = random.randrange(2)
        for attempt in range(2):   # a client retries once on the other server when a connection fails
            base = self.servers.base((index + attempt) % 2)
            try:
                response = requests.request(method, base + path, timeout=60, **kwargs)
            except requests.ConnectionError as exc:
                kind = "refused" if "refused" in str(exc).lower() else "reset or cut"
                with self.lock:
                    self.outcomes[f"connection {kind} ({method})"] += 1
                continue
            except requests.Timeout:
                with self.lock:
                    self.outcomes["timeout"] += 1
                return None
            with self.lock:
                if response.status_code >= 500:
                    code = response.json().get("code") if "json" in response.headers.get("Content-Type", "") else ""
                    self.outcomes[f"{response.status_code} {code}"] += 1
                else:
                    self.outcomes[f"{response.status_code // 100}xx"] += 1
            return response
        return None

    def generate(self, partner: int, auth: dict) -> None:
        with self.lock:
            mine = list(self.assessments[partner])
        if not mine:
            return
        assessment_id = random.choice(mine[-5:])
        headers = {**auth, "Idempotency-Key": str(uuid.uuid4())}
        if random.random() < 0.7:
            headers["Prefer"] = "respond-async"
        for _ in range(20):   # the same request, retried while its connection is cut or its key in use
            response = self.request("POST", f"/api/v1/assessments/{assessment_id}/generate", partner, headers=headers)
            if response is None:
                time.sleep(1)
                continue
            if response.status_code == 409 and response.json()["code"] == "idempotency_in_progress":
                time.sleep(2)
                continue
            break
        else:
            return
        now = time.monotonic()
        with self.lock:
            if response.status_code == 429 and response.json().get("code") == "generation_busy":
                self.busy_since.setdefault(partner, now)
                self.longest_lockout[partner] = max(self.longest_lockout[partner], now - self.busy_since[partner])
            elif response.status_code in (200, 202):
                self.busy_since.pop(partner, None)
                self.accepted_runs += 1

    def partner_loop(self, partner: int) -> None:
        auth = {"Authorization": f"Bearer {self.keys[partner]}"}
        pause = PARTNERS / RATE
        while not self.stop.is_set():
            roll = random.random()
            if roll < 0.12:
                response = self.request("POST", "/api/v1/assessments", partner, headers=auth,
                                        json=submission(companyId=f"soak-{partner}-{random.randrange(50)}"))
                if response is not None and response.status_code == 201:
                    with self.lock:
                        self.assessments[partner].append(response.json()["id"])
            elif roll < 0.27:
                self.generate(partner, auth)
            elif roll < 0.6:
                with self.lock:
                    mine = list(self.assessments[partner])
                if mine:
                    response = self.request("GET", f"/api/v1/assessments/{random.choice(mine)}", partner, headers=auth)
                    if response is not None and response.status_code == 200 and random.random() < 0.3:
                        record = response.json()
                        if record["status"] == "completed" and record["embedUrl"]:
                            suffix = ".pdf" if random.random() < 0.1 and record["reports"] else ""
                            path = record["reports"][0]["viewUrl"] if suffix else record["embedUrl"]
                            self.request("GET", requests.utils.urlparse(path).path + suffix, partner)
            else:
                self.request("GET", "/api/v1/assessments?limit=20", partner, headers=auth)
            self.stop.wait(random.expovariate(1 / pause))

    def sample_memory(self) -> None:
        while not self.stop.wait(5):
            self.memory_peaks.extend(worker_memory_mb())


def reset_database() -> str:
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DATABASE}")
    return ADMIN_URL.rsplit("/", 1)[0] + f"/{DATABASE}"


def restart_postgres() -> None:
    version = sorted(os.listdir("/etc/postgresql"))[0]
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True)


def reconcile(url: str, receiver: Receiver) -> dict:
    with psycopg.connect(url) as conn:
        one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
        stranded = one("SELECT count(*) FROM assessments WHERE status = 'generating'")
        pending = one("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")
        failed = one("SELECT count(*) FROM webhook_deliveries WHERE status = 'failed'")
        deliveries = one("SELECT count(*) FROM webhook_deliveries")
        generated = one("SELECT count(*) FROM assessments WHERE generated_at IS NOT NULL")
        billed = one("SELECT count(*) FROM usage_records")
        billed_generated = one("SELECT count(*) FROM usage_records u JOIN assessments a ON a.id = u.assessment_id"
                               " WHERE a.generated_at IS NOT NULL")
    ids = receiver.ids()
    duplicated = sum(count - 1 for count in ids.values() if count > 1)
    return {"stranded": stranded, "pending": pending, "failed": failed, "deliveries": deliveries,
            "generated": generated, "billed": billed, "billed_generated": billed_generated,
            "received": len(ids), "duplicated": duplicated}


def main() -> int:
    url = reset_database()
    helpers_before = set(_helpers())
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    receiver = Receiver()
    with llm_server(1.0) as llm_url:
        env = {**os.environ, "DATABASE_URL": url, "RATELIMIT_STORAGE_URI": REDIS_URL, "SECRET_KEY": "soak-secret",
               "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true", "REPORT_ENGINE": "openai", "OPENAI_BASE_URL": llm_url,
               "OPENAI_API_KEY": "soak", "OPENAI_MAX_CONCURRENCY": "25", "WEBHOOK_RESCUE_SECONDS": "10,30,90",
               "SHUTDOWN_GRACE_SECONDS": "10"}
        subprocess.run([BIN / "flask", "--app", "wsgi", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        keys = []
        for partner in range(PARTNERS):
            out = subprocess.run([BIN / "flask", "--app", "wsgi", "keys", "create", "--partner", f"soak-{partner}",
                                  "--rate-limit", "1000000", "--webhook-url", receiver.url, "--json"], cwd=ROOT,
                                 env=env, check=True, capture_output=True, text=True).stdout
            keys.append(json.loads(out)["apiKey"])
        servers = Servers(env)
        servers.start(0)
        servers.start(1)
        load = Load(servers, keys)
        threads = [threading.Thread(target=load.partner_loop, args=(p,), daemon=True) for p in range(PARTNERS)]
        threads.append(threading.Thread(target=load.sample_memory, daemon=True))
        started = time.monotonic()
        for thread in threads:
            thread.start()

        def at(fraction: float) -> None:
            time.sleep(max(0.0, started + SECONDS * fraction - time.monotonic()))

        faults = []
        at(0.2)
        print("fault: kill -9 server 0", flush=True)
        servers.signal(0, signal.SIGKILL)
        time.sleep(2)
        servers.start(0)
        faults.append("kill -9")
        at(0.4)
        print("fault: Postgres restart", flush=True)
        restart_postgres()
        faults.append("postgres restart")
        at(0.55)
        print("fault: receiver down 60 s", flush=True)
        receiver.down()
        time.sleep(60)
        receiver.up()
        faults.append("receiver down 60 s")
        at(0.75)
        print("fault: SIGTERM server 1", flush=True)
        servers.signal(1, signal.SIGTERM)
        servers.start(1)
        faults.append("SIGTERM")
        at(1.0)
        load.stop.set()
        for thread in threads:
            thread.join(70)
        print("load stopped; waiting for runs and deliveries to settle", flush=True)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            figures = reconcile(url, receiver)
            if not figures["stranded"] and not figures["pending"]:
                break
            time.sleep(5)
        figures = reconcile(url, receiver)
        servers.stop_all()
        time.sleep(3)
        left = left_behind(servers.pids_seen, helpers_before)
    lockouts = {p: round(s) for p, s in load.longest_lockout.items() if s > LOCKOUT_LIMIT}
    requests_sent = sum(load.outcomes.values())
    print(f"\n# soak: {SECONDS:.0f} s, {requests_sent:,} requests, {PARTNERS} partners, faults: {', '.join(faults)}")
    print(f"runs stranded (still generating): {figures['stranded']}")
    print(f"partners locked out > {LOCKOUT_LIMIT:.0f} s: {len(lockouts)} {lockouts or ''}")
    print(f"webhooks: {figures['deliveries']} queued, {figures['received']} received, "
          f"{figures['failed']} lost (failed), {figures['pending']} still pending, {figures['duplicated']} duplicated")
    print(f"runs accepted {load.accepted_runs}; assessments generated {figures['generated']}, billed "
          f"{figures['billed']} ({figures['billed_generated']} of them generated)")
    print("answers by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(load.outcomes.items())))
    print(f"processes left after stopping: {len(left)} {left or ''}")
    if left:
        print("  (the soak ends them now)")
        for pid, _ in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    peak = max(load.memory_peaks, default=0)
    print(f"print worker memory: peak {peak:.0f} MB over {len(load.memory_peaks)} samples")
    bad = figures["stranded"] or lockouts or figures["failed"] or figures["pending"] or figures["duplicated"] or left
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
