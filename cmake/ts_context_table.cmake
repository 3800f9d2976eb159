# Writes the finished translations of one context of a Qt Linguist catalogue as rows of a C++ table, so that code
# without Qt (the core's reports) can word the same texts as the console: one `{ R"tp(source)tp", R"tp(translation)tp" },`
# per message. Unfinished and obsolete translations are left out (the reader falls back to the English).
#
#   cmake -DTS=translations/tidepool_zh_CN.ts -DCONTEXT=Reason -DOUT=reason_zh_CN.inc -P cmake/ts_context_table.cmake
#
# The catalogue is the one `update_translations` writes: one <source> and one <translation> a line.

cmake_minimum_required(VERSION 3.25)

foreach(var TS CONTEXT OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ts_context_table: -D${var}=... is required")
  endif()
endforeach()

file(READ "${TS}" ts)
string(FIND "${ts}" "<name>${CONTEXT}</name>" start)
if(start EQUAL -1)
  message(FATAL_ERROR "ts_context_table: ${TS} has no context `${CONTEXT}`")
endif()
string(SUBSTRING "${ts}" ${start} -1 ts)
string(FIND "${ts}" "</context>" end)
string(SUBSTRING "${ts}" 0 ${end} ts)

function(unescape in out)
  set(text "${in}")
  string(REPLACE "&lt;" "<" text "${text}")
  string(REPLACE "&gt;" ">" text "${text}")
  string(REPLACE "&quot;" "\"" text "${text}")
  string(REPLACE "&apos;" "'" text "${text}")
  string(REPLACE "&amp;" "&" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(rows "// Generated from ${TS} (context ${CONTEXT}) by cmake/ts_context_table.cmake: do not edit.\n")
set(count 0)
while(TRUE)
  string(FIND "${ts}" "<message>" open)
  if(open EQUAL -1)
    break()
  endif()
  string(FIND "${ts}" "</message>" close)
  math(EXPR length "${close} - ${open}")
  string(SUBSTRING "${ts}" ${open} ${length} message)
  math(EXPR next "${close} + 10")
  string(SUBSTRING "${ts}" ${next} -1 ts)
  if(NOT message MATCHES "<source>([^<]*)</source>")
    continue()
  endif()
  set(source "${CMAKE_MATCH_1}")
  # Finished only: <translation>text</translation>, no `type` (unfinished, vanished, obsolete).
  if(NOT message MATCHES "<translation>([^<]*)</translation>")
    continue()
  endif()
  set(translation "${CMAKE_MATCH_1}")
  unescape("${source}" source)
  unescape("${translation}" translation)
  if(source MATCHES "\\)tp\"" OR translation MATCHES "\\)tp\"")
    message(FATAL_ERROR "ts_context_table: a text holds the raw string's delimiter: ${source}")
  endif()
  string(APPEND rows "{ R\"tp(${source})tp\", R\"tp(${translation})tp\" },\n")
  math(EXPR count "${count} + 1")
endwhile()

# Written only when it changes, so that a catalogue edited elsewhere rebuilds nothing that reads this context.
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL rows)
  file(WRITE "${OUT}" "${rows}")
endif()
