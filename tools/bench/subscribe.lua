-- wrk script: durable POST /v1/devices/{token}/subscriptions, a new device token per
-- request (so no device reaches its subscription limit), coordinates over the Nordics.
local thread_id = 0

function setup(thread)
  thread_id = thread_id + 1
  thread:set("tid", thread_id)
end

function init(args)
  counter = 0
  math.randomseed(tid * 7919 + os.time())
  run = math.random(0, 0x7fffffff)
end

function request()
  counter = counter + 1
  local token = string.format("%08x%08x%016x", tid, run, counter)
  local body = string.format('{"latitude": %.5f, "longitude": %.5f, "name": "Home"}',
    55 + math.random() * 15, 5 + math.random() * 25)
  return wrk.format("POST", "/v1/devices/" .. token .. "/subscriptions", {["Content-Type"] = "application/json"}, body)
end
