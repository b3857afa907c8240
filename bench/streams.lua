-- wrk script for the pbem benchmarks: every wrk thread owns ONE connection and replays its
-- own file of requests (<dir>/<thread>.txt, one "METHOD PATH [BODY]" a line) strictly in
-- order, so a game's pre-signed chain of moves arrives seq after seq.
-- Arguments after "--": the directory, then "cycle" to loop over the file (hello).
local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  local dir = args[1]
  cycle = args[2] == "cycle"
  statuses = {}
  exhausted = 0
  reqs = {}
  local headers = {["Content-Type"] = "application/json"}
  local f = assert(io.open(dir .. "/" .. id .. ".txt", "r"))
  for line in f:lines() do
    local method, path, body = line:match("^(%u+) (%S+) ?(.*)$")
    if method then
      if body == "" then body = nil end
      table.insert(reqs, wrk.format(method, path, headers, body))
    end
  end
  f:close()
  filler = wrk.format("GET", "/api/health")
  answered = 0
end

-- The position advances only when an answer arrives: wrk calls request() once more than it
-- sends (to check the first thread's script), and a request lost to a reconnect is re-sent.
function request()
  local i = answered + 1
  if i > #reqs then
    if not cycle then return filler end
    i = ((i - 1) % #reqs) + 1
  end
  return reqs[i]
end

function response(status, headers, body)
  answered = answered + 1
  if not cycle and answered > #reqs then
    exhausted = exhausted + 1
    return
  end
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("BENCH requests=%d duration_us=%d p50=%d p90=%d p99=%d max=%d " ..
    "connect=%d read=%d write=%d status=%d timeout=%d\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status,
    summary.errors.timeout))
  for _, t in ipairs(threads) do
    local st = t:get("statuses")
    for k, v in pairs(st) do io.write(string.format("STATUS %s %d\n", k, v)) end
    io.write(string.format("EXHAUSTED %d\n", t:get("exhausted")))
  end
end
