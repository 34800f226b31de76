# Depends of $program: the owner of each library ldd resolves (but those in $shipped), at its installed version
# ldd is a bash script: the caller's exported shell options (set -u) must not reach it
depends=$(env -u SHELLOPTS ldd "$program" \
  | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' \
  | while read -r name path; do
      case " $shipped " in *" $name "*) continue ;; esac
      pkg=$(dpkg -S "$path" 2>/dev/null | grep -v '^diversion' | head -n 1 | cut -d: -f1 | cut -d, -f1) || true
      if [ -z "$pkg" ]; then
        case "$path" in /usr/*) alias=${path#/usr} ;; *) alias=/usr$path ;; esac
        pkg=$(dpkg -S "$alias" | grep -v '^diversion' | head -n 1 | cut -d: -f1 | cut -d, -f1)
      fi
      echo "$pkg"
    done | sort -u | while read -r pkg; do
      echo "$pkg (>= $(dpkg-query -W -f='${Version}' "$pkg"))"
    done | paste -sd, - | sed 's/,/, /g')
