package dev.toolgate.tool;

/** The input type of a tool that takes no arguments: its schema is an empty object. */
public record NoInput() {
}
