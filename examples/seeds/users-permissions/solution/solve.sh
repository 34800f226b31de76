#!/bin/bash
# Reference solution: groups, users, setgid team directories and an audit from the live system.
set -euo pipefail
cd /app/onboarding
tail -n +2 groups.csv | while IFS=, read -r name gid; do
  getent group "$name" >/dev/null || groupadd -g "$gid" "$name"
done
tail -n +2 roster.csv | while IFS=, read -r user uid full team extra status; do
  [ "$status" = "active" ] || continue
  args=(-m -d "/home/$user" -u "$uid" -g "$team" -c "$full" -s /bin/bash)
  if [ -n "$extra" ]; then args+=(-G "${extra//;/,}"); fi
  id "$user" >/dev/null 2>&1 || useradd "${args[@]}" "$user"
done
install -d -o root -g root -m 0755 /srv/shared
for team in $(awk -F, 'NR > 1 && $6 == "active" {print $4}' roster.csv | sort -u); do
  install -d -o root -g "$team" /srv/shared/"$team"
  chmod 2770 /srv/shared/"$team"
done
install -d -o root -g reports /srv/shared/reports
chmod 2775 /srv/shared/reports
for user in $(awk -F, 'NR > 1 && $6 == "active" {print $1}' roster.csv | sort); do
  primary=$(id -gn "$user")
  supp=$(id -Gn "$user" | tr ' ' '\n' | awk -v p="$primary" '$0 != p' | sort | paste -sd, -)
  echo "$user $(id -u "$user") $primary ${supp:--}"
done > audit.txt
