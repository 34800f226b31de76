#!/bin/bash
# Reference solution: a numbered, rotating tar backup script, its cron.d entry, a first run.
set -euo pipefail
script=/usr/local/bin/backup-appdata.sh
cat > "$script" <<'SH'
#!/bin/bash
# Back up /srv/appdata into numbered archives, keeping the newest five.
set -euo pipefail
dest=/var/backups/appdata
keep=5
mkdir -p "$dest"
last=$(ls "$dest" | sed -nE 's/^appdata-([0-9]{4})\.tar\.gz$/\1/p' | sort -n | tail -n 1)
next=$(printf '%04d' $((10#${last:-0} + 1)))
tar -C /srv --sort=name --exclude='appdata/cache' --exclude='*.tmp' \
  -czf "$dest/.appdata-$next.partial" appdata
mv "$dest/.appdata-$next.partial" "$dest/appdata-$next.tar.gz"
ls "$dest" | sed -nE '/^appdata-[0-9]{4}\.tar\.gz$/p' | sort | head -n "-$keep" \
  | while read -r old; do rm -f "$dest/$old"; done
echo "wrote $dest/appdata-$next.tar.gz"
SH
chown root:root "$script"
chmod 0755 "$script"
cat > /etc/cron.d/appdata-backup <<'CRON'
# Back up /srv/appdata every six hours (see /usr/local/bin/backup-appdata.sh).
SHELL=/bin/sh
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
15 */6 * * * root /usr/local/bin/backup-appdata.sh >> /var/log/appdata-backup.log 2>&1
CRON
chown root:root /etc/cron.d/appdata-backup
chmod 0644 /etc/cron.d/appdata-backup
"$script"
