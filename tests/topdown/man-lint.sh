#!/bin/sh
echo 1..0
