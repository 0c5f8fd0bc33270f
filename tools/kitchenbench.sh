#!/usr/bin/env bash
# Kitchen benchmark scenario (docs/benchmarks.md, "Kitchen"): against a running server at $API,
# builds an organization with 150 recipes three levels deep (dish → sauce → stock → items) on a
# one-week menu, tomorrow's weekday at 3 day parts (450 menu items), forecasts tomorrow, times generate (first run
# and the idempotent second), then makes 40 live runs today and pairs a wallboard. It prints the
# variables the loadgen runs need (ACCESS, ORG, RUN, DEVICE_TOKEN).
set -euo pipefail
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
API=${API:-http://127.0.0.1:28080/v1}
EMAIL=${EMAIL:-bench-$RANDOM@example.com}
PASSWORD=walk-in-cooler-pantry-9
SESSION=$(curl -fsS "$API/auth/register" -H 'content-type: application/json' \
  -d "{\"name\":\"Bench Cook\",\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\",\"orgName\":\"Bench Kitchens\"}")
ACCESS=$(jq -r .accessToken <<<"$SESSION")
ORG=$(jq -r '.user.memberships[0].orgId' <<<"$SESSION")
auth=(-H "authorization: Bearer $ACCESS" -H 'content-type: application/json')
post() { printf "%s" "$2" | curl -fsS "$API/orgs/$ORG/$1" "${auth[@]}" --data-binary @-; }
SITE=$(post sites '{"name":"Main Kitchen","timezone":"America/New_York"}' | jq -r .id)
curl -fsS -X PUT "$API/orgs/$ORG/sites/$SITE" "${auth[@]}" -d '{"name":"Main Kitchen","timezone":"America/New_York",
  "dayParts":[{"name":"breakfast","start":"06:00","end":"10:00"},{"name":"lunch","start":"11:00","end":"14:00"},{"name":"dinner","start":"17:00","end":"20:00"}]}' >/dev/null
ITEMS=()
for i in $(seq 1 20); do
  ITEMS+=("$(post inventory-items "{\"name\":\"Item $i\",\"category\":\"bench\",\"baseUnit\":\"kg\",\"allergens\":{\"milk\":\"free\",\"wheat\":\"contains\"}}" | jq -r .id)")
done
recipe() { # name yield-unit line-json...
  local name=$1 unit=$2; shift 2
  local lines; lines=$(IFS=,; echo "$*")
  post recipes "{\"name\":\"$name\",\"category\":\"bench\",\"yield\":{\"quantity\":\"10\",\"unit\":\"$unit\"},\"portion\":{\"quantity\":\"250\",\"unit\":\"g\"},
    \"maxBatch\":\"20\",\"station\":\"hot line\",\"ingredients\":[$lines],\"steps\":[\"Cook.\"]}" | jq -r .id
}
item() { echo "{\"itemId\":\"${ITEMS[$1]}\",\"quantity\":\"$2\",\"unit\":\"kg\"}"; }
MENU='[]'
TOMORROW=$(TZ=America/New_York date -d tomorrow +%F)
WEEKDAY=$(TZ=America/New_York date -d tomorrow +%u)
for i in $(seq 1 150); do
  STOCK=$(recipe "Stock $i" kg "$(item $((i % 20)) 3)" "$(item $(((i + 1) % 20)) 1)")
  SAUCE=$(recipe "Sauce $i" kg "$(item $(((i + 2) % 20)) 2)" "{\"recipeId\":\"$STOCK\",\"quantity\":\"4\",\"unit\":\"kg\"}")
  DISH=$(recipe "Dish $i" kg "$(item $(((i + 3) % 20)) 5)" "{\"recipeId\":\"$SAUCE\",\"quantity\":\"2\",\"unit\":\"kg\"}")
  MENU=$(jq -c --arg r "$DISH" --argjson d "$WEEKDAY" '. + [("breakfast","lunch","dinner") as $p | {week:1, weekday:$d, dayPart:$p, recipeId:$r, portionsPerCover:"0.1"}]' <<<"$MENU")
  [ "$i" = 1 ] && FIRST=$DISH
done
post menus "{\"siteId\":\"$SITE\",\"name\":\"Bench\",\"startsOn\":\"2026-01-05\",\"cycleWeeks\":1,\"items\":$MENU}" >/dev/null
for p in breakfast lunch dinner; do
  post forecasts "{\"siteId\":\"$SITE\",\"date\":\"$TOMORROW\",\"dayPart\":\"$p\",\"covers\":400}" >/dev/null
done
for n in 1 2 3; do
  curl -fsS -o "$OUT" -w "generate $n: %{time_total}s\n" "$API/orgs/$ORG/production-runs/generate" "${auth[@]}" \
    -d "{\"siteId\":\"$SITE\",\"date\":\"$TOMORROW\"}"
  jq -c '{created, updated, unchanged, removed}' "$OUT"
done
RUN=$(jq -r '.runs[0].id' "$OUT")
TODAY=$(TZ=America/New_York date +%F)
for i in $(seq 1 40); do
  R=$(post production-runs "{\"siteId\":\"$SITE\",\"date\":\"$TODAY\",\"recipeId\":\"$FIRST\",\"portions\":\"$((10 + i))\"}" | jq -r .id)
  post "production-runs/$R/status" '{"status":"in_progress"}' >/dev/null
done
DEVICE=$(post devices "{\"name\":\"Hot line\",\"kind\":\"wallboard_boh\",\"siteId\":\"$SITE\"}" | jq -r .id)
CODE=$(curl -fsS -X POST "$API/orgs/$ORG/devices/$DEVICE/pair" -H "authorization: Bearer $ACCESS" | jq -r .code)
DEVICE_TOKEN=$(curl -fsS "$API/devices/pair" -H 'content-type: application/json' -d "{\"code\":\"$CODE\"}" | jq -r .deviceToken)
echo "live runs on the wallboard: $(curl -fsS "$API/device/state" -H "x-device-token: $DEVICE_TOKEN" | jq '.production | length')"
echo "EMAIL=$EMAIL ORG=$ORG RUN=$RUN DEVICE_TOKEN=$DEVICE_TOKEN"
