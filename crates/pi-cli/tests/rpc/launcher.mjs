// Pi's RpcClient starts `node <cliPath> --mode rpc ...`: this launcher, as cliPath, runs
// pi-tool (PI_TOOL_BIN) with the same arguments and streams, and passes a stop signal on.
import { spawn } from "node:child_process";

const child = spawn(process.env.PI_TOOL_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
